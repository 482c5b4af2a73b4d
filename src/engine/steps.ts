import { coerceError, ErrorCode, GwError } from "../core/errors.js";
import { type OutputRow, type TaskRow, TaskState } from "../store/index.js";
import { checkTask } from "./checks.js";
import type { RunContext } from "./context.js";
import { recordFailure, skipDependants } from "./dependants.js";
import { type DownloadResult, localFaultMessage } from "./download.js";
import { askAbout, type BatchAnswer, type Polled, type Poller, recordAnswers } from "./poll.js";
import { finishUnchecked } from "./refusals.js";
import { isStoreUnusable } from "./store-fault.js";
import type { Sent } from "./submit.js";

/**
 * What follows each step of a task, decided once for every driver. Each function records in
 * the store what the step means and returns what the driver does next: the single-process
 * `Engine` with its in-memory queues, a fleet with graphile-worker jobs (which the store queues
 * itself as tasks move, so a fleet often has nothing left to do).
 */

/** What a driver does after a submit. */
export type AfterSend =
  /** The gateway holds it: poll it from `at`. */
  | { next: "poll"; task: TaskRow; at: number }
  /** A text answer is on disk and recorded: finish it (`finishDownloaded`). */
  | { next: "finish"; task: TaskRow }
  /** The gateway's balance ran out: no more submits for the run. */
  | { next: "halt"; end: "balance"; message: string }
  /** The gateway answered and the store could not record it: stop, naming `what`. */
  | { next: "fault"; what: string; error: unknown }
  /** Nothing: not sent, another process moved it, back to pending, or failed (recorded). */
  | { next: "none" };

export async function afterSend(sent: Sent, context: RunContext): Promise<AfterSend> {
  switch (sent.kind) {
    case "polling":
      return { next: "poll", task: sent.task, at: sent.nextPollAt };
    case "answered":
      return { next: "finish", task: sent.task };
    case "unrecorded":
      return { next: "fault", what: sent.what, error: sent.error };
    case "failed":
      await recordFailure(context, sent.task, [TaskState.Submitting], sent.reason, sent.to, {
        unknownSubmits: sent.unknownSubmits,
      });
      return { next: "none" };
    case "released":
      return sent.halt === "balance"
        ? { next: "halt", end: "balance", message: `the gateway balance ran out: ${sent.reason}` }
        : { next: "none" };
    case "not-sent":
    case "lost":
      return { next: "none" };
    default: {
      const never: never = sent;
      throw new Error(`unknown submit ending ${JSON.stringify(never)}`);
    }
  }
}

/**
 * One poll call about `batch` and what it means: answers recorded, tasks still running
 * polled on, a failed task's dependants skipped. An unreadable or missing answer is polled
 * again later, backing off; tasks it gave up on are failed. Returns the tasks no longer
 * polled (completed, failed, given up, or moved on by another process). Throws the store's
 * failure to record the answers (the driver stops, or says so and tries again: it is not the
 * gateway's), and an abort.
 */
export async function pollRound(
  batch: readonly TaskRow[],
  poller: Poller,
  context: RunContext,
): Promise<{ ended: Polled[]; givenUp: TaskRow[] }> {
  const { clock, emit } = context;
  let answer: BatchAnswer;
  try {
    answer = await askAbout(batch, context);
  } catch (error) {
    if (isStoreUnusable(error) || context.signal.aborted) throw error;
    // The tasks are still the gateway's: polled later, unless its answers stay unreadable.
    const { delayMs, givenUp } = poller.unanswered(batch, error, clock.now());
    emit({ type: "gateway:retry", what: "poll", delayMs, reason: coerceError(error).message });
    for (const { task, reason } of givenUp) {
      poller.untrack(task.key);
      await recordFailure(context, task, [task.state], reason);
    }
    return { ended: [], givenUp: givenUp.map(({ task }) => task) };
  }
  let polled: Polled[];
  try {
    polled = await recordAnswers(batch, answer, context, (key) => poller.unpublished(key));
  } catch (error) {
    if (isStoreUnusable(error) || context.signal.aborted) throw error;
    throw unrecordedRound(error);
  }
  const ended = poller.settle(polled, clock.now());
  for (const { task, outcome, lost } of ended)
    if (!lost && outcome.kind === "failed") await skipDependants(context, task, outcome.reason);
  return { ended, givenUp: [] };
}

/**
 * A store that refused a poll round's answers (a statement that fails every time): the run
 * cannot go on recording what the gateway says, so it is the store's failure, said aloud.
 * Every task of the round stays as recorded (its task id kept), to be polled again.
 */
function unrecordedRound(error: unknown): GwError {
  return new GwError(
    ErrorCode.StoreUnusable,
    `the store could not record a poll round: ${coerceError(error).message}`,
    {
      hint: "the tasks polled keep their recorded task ids; run again to poll them once the store records",
      cause: error,
    },
  );
}

/** What a driver does after a download. */
export type AfterDownload =
  /** Every output is on disk: finish it (`finishDownloaded`) with its outputs as recorded. */
  | { next: "finish"; task: TaskRow; outputs: OutputRow[] }
  /** This machine cannot keep the file: the run stops, the task stays completed. */
  | { next: "halt"; message: string; fault: Error }
  /** Stopped midway (interrupted): the task stays completed, to be downloaded again. */
  | { next: "again" }
  /** A dead link: the task ended expired (recorded, its dependants skipped). */
  | { next: "none" };

export async function afterDownload(
  result: DownloadResult,
  task: TaskRow,
  context: RunContext,
): Promise<AfterDownload> {
  if (result.complete)
    return {
      next: "finish",
      task: { ...task, state: TaskState.Downloaded },
      outputs: result.outputs,
    };
  if (result.localFault !== undefined)
    return { next: "halt", message: localFaultMessage(result), fault: result.localFault };
  if (result.expired === undefined) return { next: "again" };
  const { reason, idx } = result.expired;
  await recordFailure(context, task, [TaskState.Completed], reason, TaskState.Expired, {
    expiredOutput: idx,
  });
  return { next: "none" };
}

/**
 * How a downloaded task ended its checks; `spent`: what its judge's calls cost this process
 * (the budget counts it).
 */
export type Finished =
  /** Done: its dependants start. */
  (
    | { kind: "done" }
    /** A check failed with `on_fail: retry`: back to pending as a new task. */
    | { kind: "requeued"; task: TaskRow }
    /** A judge rejected it with `on_fail: retry`: `take`, its new take, is pending. */
    | { kind: "retaken"; take: TaskRow }
    /** Failed (recorded, its dependants skipped), or moved on by another process. */
    | { kind: "ended" }
    /** Its judge could not be asked: paid for and on disk, it waits downloaded for a resume. */
    | { kind: "unjudged"; reason: string }
  ) & { spent?: number };

/**
 * Downloaded → checks and thumbnails → done. Without checks (a text answer, or a run that
 * makes none) it is done at once, unless it is a text answer that refused. `outputs`: the
 * task's outputs as just recorded, when the caller has them.
 */
export async function finishDownloaded(
  task: TaskRow,
  context: RunContext,
  outputs?: OutputRow[],
): Promise<Finished> {
  const { postprocess } = context;
  if (postprocess === undefined || task.lane === "text") {
    if (!(await finishUnchecked(context, task))) return { kind: "ended" };
    await publishDone(task, context);
    return { kind: "done" };
  }
  const checked = await checkTask(task, postprocess, context, outputs);
  const { spent } = checked;
  switch (checked.kind) {
    case "done":
      await publishDone(task, context);
      return { kind: "done", spent };
    case "requeued":
      return { kind: "requeued", task: checked.task, spent };
    case "retaken":
      return { kind: "retaken", take: checked.take, spent };
    case "failed":
      await recordFailure(context, task, [TaskState.Downloaded], checked.reason);
      return { kind: "ended", spent };
    case "unjudged":
      return { kind: "unjudged", reason: checked.reason, spent };
    case "lost":
      return { kind: "ended", spent };
    default: {
      const never: never = checked;
      throw new Error(`unknown check ending ${JSON.stringify(never)}`);
    }
  }
}

/** A done task published, and told of; a failure is told, never the task's (it is done, paid). */
export async function publishDone(task: TaskRow, context: RunContext): Promise<void> {
  const { publisher, emit, signal } = context;
  if (publisher === undefined) return;
  const failed = await publisher
    .publish(task, signal)
    .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
  emit({
    type: "output:published",
    key: task.key,
    job: task.job_id,
    label: task.label,
    failed: failed ?? null,
  });
}
