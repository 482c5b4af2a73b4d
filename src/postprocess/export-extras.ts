import { constants, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileMatches } from "../core/output-files.js";
import { isBelow } from "../core/safe-files.js";
import type { RunRow } from "../store/index.js";
import { readSidecar } from "./record-extras.js";
import type { RenditionRecord } from "./renditions.js";
import type { ReviewRecord } from "./review-record.js";
import { xmpPacket } from "./xmp.js";

/**
 * What `gwrun export` adds beside an exported picture or clip: its XMP marking as a sidecar
 * (`<copy>.xmp`, the copy itself keeps the gateway's bytes, so a vendor's C2PA signature in it
 * stays valid) and its renditions (which carry the marking inside), each copied only while it
 * holds the bytes its record says. Returns the files written, relative to the delivery folder.
 */
export async function exportExtras(
  record: ReviewRecord,
  source: string,
  delivered: string,
  run: Pick<RunRow, "id">,
  options: { dir: string; force: boolean },
): Promise<string[]> {
  if (!/^(image|video)\//.test(record.content_type ?? "")) return [];
  const sidecar = readSidecar(`${source}.json`);
  const target = path.join(options.dir, delivered);
  const written: string[] = [];
  const xmp = xmpPacket({
    model: record.model,
    taskId: record.task_id,
    run: typeof sidecar.run === "number" ? sidecar.run : run.id,
    prompt: sidecar.xmp_prompt === false ? null : record.prompt,
  });
  if (options.force || !existsSync(`${target}.xmp`)) {
    writeFileSync(`${target}.xmp`, xmp);
    written.push(`${delivered}.xmp`);
  }
  const renditions = Array.isArray(sidecar.renditions)
    ? (sidecar.renditions as RenditionRecord[])
    : [];
  for (const rendition of renditions) {
    const from = path.join(path.dirname(source), rendition.file);
    const to = path.join(path.dirname(target), rendition.file);
    if (!isBelow(options.dir, to)) continue;
    if (!(await fileMatches(from, rendition.bytes, rendition.sha256))) continue;
    if (existsSync(to) && !options.force) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    // A link in the copy's place is removed, not followed.
    rmSync(to, { force: true });
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    written.push(path.relative(options.dir, to).split(path.sep).join("/"));
  }
  return written;
}
