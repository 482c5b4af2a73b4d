import { provenanceSchema, type Rendition, renditionsSchema } from "./renditions-schema.js";
import { readYamlValue } from "./yaml-syntax.js";

/**
 * `output.renditions` and `output.provenance.prompt` of a manifest as a run recorded it: what
 * the run's end makes, read here by every driver (one process, a fleet's settling worker)
 * alike. A value that does not check is none, as the run could not have started with it.
 */
export function renditionSettingsOf(
  text: string,
  file: string,
): { renditions: Rendition[]; prompt: boolean } {
  let output: { renditions?: unknown; provenance?: unknown } | undefined;
  try {
    output = (readYamlValue(text, file) as { output?: typeof output } | null)?.output;
  } catch {
    output = undefined;
  }
  const renditions = renditionsSchema.safeParse(output?.renditions ?? []);
  const provenance = provenanceSchema.safeParse(output?.provenance ?? {});
  return {
    renditions: renditions.success ? renditions.data : [],
    prompt: (provenance.success ? provenance.data.prompt : undefined) ?? true,
  };
}
