import type { JobSpec } from "./types.js";

/** Where a job's entry sits in the document. */
export function jobPath(spec: JobSpec): (string | number)[] {
  return ["jobs", spec.index];
}
