import { readRecordedSync, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import type { CheckedJob } from "../families/index.js";
import { type DataUriCache, dataUriImageIssues, FAMILIES } from "../families/index.js";
import { selectedByTask } from "../manifest/index.js";
import { type DependantTask, dependantsOfOutputs, standInsOf } from "../plan/index.js";
import {
  type FailDetail,
  type OutputRow,
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
  selected?: ReadonlySet<number>,
): Promise<{ dependants: RecordedDependant[]; events: TaskEvent[] }> {
  const now = context.clock.now();
  const outputs = await context.store.outputsOf(upstream.key);
  const used = outputs.filter((output) => selected === undefined || selected.has(output.idx));
  // Made on another host of a fleet: its bytes are read back from object storage.
  await context.publisher?.bringHere(used);
  const { vars } = variablesOf(upstream);
  const read = {
    dataUri: (output: OutputRow) => dataUriOf(output.path, output.content_type),
    text: (output: OutputRow) => textOf(output.path),
  };
  const bound = dependantsOfOutputs(templates, { ...upstream, vars }, used, now, read, selected);
  const tasks = await refuseUnfitImages(bound, upstream.label);
  return context.store.recordDependants(context.runId, upstream, tasks, now);
}

/**
 * A done task's dependants: recorded (one per output, template and repeat, their requests
 * bound to its outputs), those that cannot be sent failed, and every other one taken on as
 * the driver takes any recorded task on (queued, polled, delivered, made again…). Then those
 * of `from: { selected: true }` jobs, when its group is decided.
 */
export async function startDependants(task: TaskRow, context: RunContext): Promise<void> {
  const templates: readonly CheckedJob[] | undefined = context.templates.get(task.job_id);
  if (templates === undefined) return;
  await takeOnRecorded(context, await recordDependants(context, templates, task));
  await startSelectedDependants(context, task);
}

async function takeOnRecorded(
  context: RunContext,
  { dependants, events }: { dependants: RecordedDependant[]; events: TaskEvent[] },
): Promise<void> {
  publish(context, events);
  for (const { task: dependant, problem } of dependants) {
    if (problem !== null && dependant.state === TaskState.Pending)
      await recordFailure(context, dependant, [TaskState.Pending], problem);
    else await context.takeOnDependant(dependant);
  }
}

/**
 * `from: { job, selected: true }`: once none of a group's takes is on its way any more (the
 * last one done or failed), the dependants of the outputs its `select:` picks are recorded
 * and taken on. Recording is by key, so a group decided before (a resumed run, a fleet's
 * other worker) records nothing twice.
 */
async function startSelectedDependants(context: RunContext, task: TaskRow): Promise<void> {
  const templates = context.templates
    .get(task.job_id)
    ?.filter((checked) => checked.job.spec.fromSelected);
  if (templates === undefined || templates.length === 0) return;
  const chosen = selectedByTask(await context.store.takesOf(context.runId, task));
  if (chosen === undefined) return;
  for (const [key, indexes] of chosen) {
    const upstream = await context.store.task(key);
    if (upstream?.state !== TaskState.Done) continue;
    await takeOnRecorded(context, await recordDependants(context, templates, upstream, indexes));
  }
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
  if (!context.templates.has(task.job_id)) return;
  publish(context, await recordSkipped(context, context.templates, task, reason));
  // The last take of a group may settle it by failing: the winners' dependants start now.
  await startSelectedDependants(context, task);
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
