import type { JobSpec } from "./types.js";

/** Where a job's entry sits in the document. */
export function jobPath(spec: JobSpec): (string | number)[] {
  return ["jobs", spec.index];
}

/** A path into the manifest as its text names it: `jobs[2].messages[0].content`. */
export function pathLabel(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (label, step) =>
      typeof step === "number" ? `${label}[${step}]` : label === "" ? step : `${label}.${step}`,
    "",
  );
}
