import { GWRUN_VERSION } from "../core/version.js";

/**
 * The XMP packet gwrun writes into renditions and exported copies (EU AI Act Art. 50 marking):
 * the IPTC digital source type for generated media, the model, the gateway's task id, gwrun's
 * version, the run and, unless the manifest says `output.provenance: { prompt: false }`, the
 * prompt (as `dc:description`).
 */

export const TRAINED_ALGORITHMIC_MEDIA =
  "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";

/** What the marking says of one output. */
export interface Marking {
  model: string | null;
  taskId: string | null;
  run: number;
  /** Null when the manifest keeps prompts out of files. */
  prompt: string | null;
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] as string,
  );
}

/** The marking as an XMP packet (UTF-8 text). */
export function xmpPacket(marking: Marking): string {
  const attr = (name: string, value: string | number | null) =>
    value === null ? "" : `\n    ${name}="${escapeXml(String(value))}"`;
  const description =
    marking.prompt === null
      ? ""
      : `\n   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(marking.prompt)}</rdf:li></rdf:Alt></dc:description>`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:gwrun="https://github.com/gwrun/gwrun/ns/1.0/"
    Iptc4xmpExt:DigitalSourceType="${TRAINED_ALGORITHMIC_MEDIA}"
    xmp:CreatorTool="gwrun ${escapeXml(GWRUN_VERSION)}"${attr("gwrun:model", marking.model)}${attr("gwrun:taskId", marking.taskId)}${attr("gwrun:version", GWRUN_VERSION)}${attr("gwrun:run", marking.run)}>${description}
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

/** The marking as ffmpeg `-metadata` options for an MP4 (kept by `use_metadata_tags`). */
export function mp4Metadata(marking: Marking): string[] {
  const tags: [string, string | null][] = [
    ["comment", `DigitalSourceType=${TRAINED_ALGORITHMIC_MEDIA}`],
    ["encoder", `gwrun ${GWRUN_VERSION}`],
    ["gwrun_digital_source_type", TRAINED_ALGORITHMIC_MEDIA],
    ["gwrun_model", marking.model],
    ["gwrun_task_id", marking.taskId],
    ["gwrun_version", GWRUN_VERSION],
    ["gwrun_run", String(marking.run)],
    ["description", marking.prompt],
  ];
  return tags.flatMap(([key, value]) => (value === null ? [] : ["-metadata", `${key}=${value}`]));
}
