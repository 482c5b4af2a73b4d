import { readRecordedSync, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import type { CheckedJob } from "../families/index.js";
import { type DataUriCache, dataUriImageIssues, FAMILIES } from "../families/index.js";
import { type DependantTask, dependantsOfOutputs, standInsOf } from "../plan/index.js";
import {
  type FailDetail,
  type RecordedDependant,
  type TaskEvent,
  type TaskRow,
  TaskState,
  variablesOf,
} from "../store/index.js";
import { publish, type RunContext } from "./context.js";

/**
 * Pipelines as a run records them: a done task's dependants (one per output, template and
 * repeat, their inputs bound to its outputs) and the skipped stand-ins of a failed one.
 */

export async function recordDependants(
  context: RunContext,
  templates: readonly CheckedJob[],
  upstream: TaskRow,
): Promise<{ dependants: RecordedDependant[]; events: TaskEvent[] }> {
  const now = context.clock.now();
  const outputs = await context.store.outputsOf(upstream.key);
  // Made on another host of a fleet: its bytes are read back from object storage.
  await context.publisher?.bringHere(outputs);
  const { vars } = variablesOf(upstream);
  const bound = dependantsOfOutputs(templates, { ...upstream, vars }, outputs, now, {
    dataUri: (output) => dataUriOf(output.path, output.content_type),
    text: (output) => textOf(output.path),
  });
  const tasks = await refuseUnfitImages(bound, upstream.label);
  return context.store.recordDependants(context.runId, upstream, tasks, now);
}

/**
 * A Data URI bound into an image field (an upstream's file, or a text answer that is one) is
 * held to the field's rules as a written one is: a dependant whose image breaks them is
 * recorded refused, with the reason, and never sent or paid for.
 */
async function refuseUnfitImages(
  tasks: readonly DependantTask[],
  upstream: string,
): Promise<DependantTask[]> {
  const cache: DataUriCache = new Map();
  return Promise.all(
    tasks.map(async (dependant) => {
      const family = FAMILIES.find(({ id }) => id === dependant.task.family);
      if (
        dependant.problem !== null ||
        family === undefined ||
        !dependant.task.request.includes('"data:image/')
      )
        return dependant;
      const body = JSON.parse(dependant.task.request) as Record<string, unknown>;
      const issues = await dataUriImageIssues(family, body, cache);
      if (issues.length === 0) return dependant;
      const problem = issues
        .map(
          ({ path, message }) => `${fieldName(path)}: the image bound from ${upstream}, ${message}`,
        )
        .join("; ");
      return { ...dependant, problem };
    }),
  );
}

function fieldName(path: readonly (string | number)[]): string {
  return path
    .map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`))
    .join("")
    .slice(1);
}

export function recordSkipped(
  context: RunContext,
  templates: ReadonlyMap<string, readonly CheckedJob[]>,
  upstream: TaskRow,
  reason: string,
): Promise<TaskEvent[]> {
  const standIns = standInsOf(templates, {
    key: upstream.key,
    label: upstream.label,
    jobId: upstream.job_id,
    vars: variablesOf(upstream).vars,
  });
  return context.store.recordSkipped(
    context.runId,
    upstream,
    standIns,
    reason,
    context.clock.now(),
  );
}

/** A task failed (or expired, held…) as recorded, and its dependants skipped with its reason. */
export async function recordFailure(
  context: RunContext,
  task: TaskRow,
  from: readonly TaskState[],
  reason: string,
  to: "failed" | "rejected" | "expired" | "held" = TaskState.Failed,
  detail?: FailDetail,
): Promise<void> {
  const { store, clock } = context;
  const events = await store.failTask(task, from, to, reason, clock.now(), detail);
  publish(context, events);
  if (events.length > 0) await skipDependants(context, task, reason);
}

/** A failed upstream's dependants are recorded skipped, with its reason. */
export async function skipDependants(
  context: RunContext,
  task: TaskRow,
  reason: string,
): Promise<void> {
  if (context.templates.has(task.job_id))
    publish(context, await recordSkipped(context, context.templates, task, reason));
}

/** An upstream picture or clip bound as a Data URI is read no further than this. */
const INPUT_MAX_BYTES = 200 * 1024 * 1024;

/** The bytes of an upstream output, as recorded: a link put in its place is not followed. */
function upstreamBytes(file: string | null, maxBytes: number): Buffer {
  if (file === null) throw new Error("the upstream output is not on disk");
  const read = readRecordedSync(file, maxBytes);
  if ("problem" in read) throw new Error(read.problem);
  return read.bytes;
}

function dataUriOf(file: string | null, contentType: string | null): string {
  const bytes = upstreamBytes(file, INPUT_MAX_BYTES);
  return `data:${contentType ?? "image/png"};base64,${bytes.toString("base64")}`;
}

function textOf(file: string | null): string {
  // The file holds the answer with one trailing newline added.
  if (file === null) return "";
  return upstreamBytes(file, TEXT_FILE_MAX_BYTES).toString("utf8").replace(/\n$/, "");
}
