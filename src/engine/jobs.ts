import type { CheckedJob } from "../families/index.js";
import { INPUT_PLACEHOLDERS } from "../manifest/index.js";
import { taskKey } from "../plan/index.js";
import type { NewJob } from "../store/index.js";

/**
 * From checked manifest jobs to the rows a run records: one per task (combination × repeat),
 * each with a label that names its files. `from:` jobs become templates, instantiated once
 * per upstream output when it is on disk.
 */

/** Job id, plus the combination and repeat when there are several: `styles-e3-r2`. */
export function labelOf(checked: CheckedJob, repeatIndex: number): string {
  const { spec, expansion, expansions } = checked.job;
  let label = spec.id;
  if (expansions > 1) label += `-e${expansion + 1}`;
  if (spec.repeat > 1) label += `-r${repeatIndex + 1}`;
  return label;
}

function rowOf(
  checked: CheckedJob,
  body: Record<string, unknown>,
  repeatIndex: number,
  label: string,
  upstreamKey: string | null,
  identity: Record<string, unknown> = body,
): NewJob {
  return {
    key: taskKey({ endpoint: checked.endpoint, body: identity, repeatIndex }),
    jobId: checked.job.spec.id,
    label,
    family: checked.family?.id ?? null,
    lane: checked.family?.lane ?? laneOf(checked.endpoint),
    endpoint: checked.endpoint,
    request: JSON.stringify(body),
    upstreamKey,
    estimatedCost: checked.family?.estimateCost(body) ?? null,
  };
}

/** The rows of every job that does not wait for an upstream output. */
export function initialJobs(jobs: readonly CheckedJob[]): NewJob[] {
  return jobs
    .filter((checked) => checked.job.spec.from === undefined)
    .flatMap((checked) =>
      Array.from({ length: checked.job.spec.repeat }, (_, repeat) =>
        rowOf(checked, checked.body, repeat, labelOf(checked, repeat), null),
      ),
    );
}

/** `from:` jobs by the id of the job they follow. */
export function dependantTemplates(jobs: readonly CheckedJob[]): Map<string, CheckedJob[]> {
  const templates = new Map<string, CheckedJob[]>();
  for (const checked of jobs) {
    const from = checked.job.spec.from;
    if (from === undefined) continue;
    templates.set(from, [...(templates.get(from) ?? []), checked]);
  }
  return templates;
}

/** What an upstream output offers a dependant: its link, its file as a Data URI, its text. */
export interface UpstreamOutput {
  url: string | null;
  /** Read lazily: only dependants that use `{{input.file}}` pay for it. */
  dataUri: () => string;
  text: () => string;
}

/** The rows for one upstream output: each template, each repeat, its inputs bound. */
export function dependantJobs(
  templates: readonly CheckedJob[],
  upstream: { key: string; label: string; outputIndex: number; outputs: number },
  output: UpstreamOutput,
): NewJob[] {
  return templates.flatMap((checked) => {
    const from = checked.job.spec.from as string;
    const body = bindInputs(checked.body, from, output) as Record<string, unknown>;
    // The key names the upstream output, not its link: links change, the output does not.
    const stable = `gwrun-output:${upstream.key}/${upstream.outputIndex}`;
    const identity = bindInputs(checked.body, from, {
      url: stable,
      dataUri: () => stable,
      text: () => stable,
    }) as Record<string, unknown>;
    const suffix = upstream.outputs > 1 ? `-${upstream.outputIndex + 1}` : "";
    return Array.from({ length: checked.job.spec.repeat }, (_, repeat) =>
      rowOf(
        checked,
        body,
        repeat,
        `${labelOf(checked, repeat)}-of-${upstream.label}${suffix}`,
        upstream.key,
        identity,
      ),
    );
  });
}

/** The body with the validation placeholders of `{{input.*}}` replaced by the real values. */
function bindInputs(value: unknown, from: string, output: UpstreamOutput): unknown {
  if (typeof value === "string") {
    let text = value;
    const url = INPUT_PLACEHOLDERS.url(from);
    if (text.includes(url)) text = text.replaceAll(url, output.url ?? output.dataUri());
    const file = INPUT_PLACEHOLDERS.file();
    if (text.includes(file)) text = text.replaceAll(file, output.dataUri());
    const produced = INPUT_PLACEHOLDERS.text(from);
    if (text.includes(produced)) text = text.replaceAll(produced, output.text());
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => bindInputs(item, from, output));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, bindInputs(v, from, output)]),
    );
  }
  return value;
}

export function laneOf(endpoint: string): "image" | "video" | "text" {
  if (endpoint.includes("/videos/")) return "video";
  if (endpoint.includes("/images/")) return "image";
  return "text";
}
