import { fileNameText } from "../core/text-filter.js";
import type { ExpandedJob, JobSpec } from "./types.js";

/**
 * Task labels, which name output files: the job id, the combination and repeat when there are
 * several, and for a `from:` job the label of the upstream output it was made from.
 */

/** Job id, plus the combination and repeat when there are several: `styles-e3-r2`. */
export function expansionLabel(
  spec: Pick<JobSpec, "id" | "repeat">,
  expansion: number,
  expansions: number,
  repeatIndex: number,
): string {
  let label = spec.id;
  if (expansions > 1) label += `-e${expansion + 1}`;
  if (spec.repeat > 1) label += `-r${repeatIndex + 1}`;
  return label;
}

/**
 * A dependant's label: its own, then the upstream task's label, with the output's number when
 * the upstream made several: `teaser-of-hero-e2-3`.
 */
export function dependantLabel(
  own: string,
  upstreamLabel: string,
  outputIndex: number,
  outputs: number,
): string {
  return `${own}-of-${upstreamLabel}${outputs > 1 ? `-${outputIndex + 1}` : ""}`;
}

/** A task's label: its job's `label:` made safe as a file name (and its repeat), else `expansionLabel`. */
export function taskLabel(
  job: Pick<ExpandedJob, "spec" | "expansion" | "expansions" | "label">,
  repeatIndex: number,
): string {
  const { spec, label } = job;
  if (label === undefined) return expansionLabel(spec, job.expansion, job.expansions, repeatIndex);
  const safe = fileNameText(label) || spec.id;
  return spec.repeat > 1 ? `${safe}-r${repeatIndex + 1}` : safe;
}
