import { coerceError, ErrorCode } from "../core/errors.js";
import { ruleFor, usageCost } from "../families/index.js";
import { GatewayError, gatewayText, isRetryable } from "../gateway/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
import { type Claim, type ClaimRefusal, publish, type RunContext } from "./context.js";
import { type CallTally, type PacedCallDeps, pacedCall } from "./paced-call.js";
import { isStoreUnusable } from "./store-fault.js";
import { answerRow, callTextTask, type TextTaskResult } from "./text-tasks.js";
import { HeldSubmit, submitMayHaveArrived } from "./unknown-submit.js";

/**
 * Submitting one task: its turn at the pace, its claim, the call — a media submit (answered
 * with a task id) or a text call (answered in full) — and what the store records of it; and
 * what a failed submit means.
 */

/** How a submit ended, for the engine's bookkeeping (the store has recorded it). */
export type Sent =
  /** Not sent: the run stopped first, or its claim was refused (`refused`: why). */
  | { kind: "not-sent"; refused?: ClaimRefusal; unknownSubmits: 0 }
  /** The gateway holds it: poll from `nextPollAt`. */
  | { kind: "polling"; task: TaskRow; nextPollAt: number; unknownSubmits: number }
  /** A text answer, on disk and recorded: check it. */
  | { kind: "answered"; task: TaskRow; unknownSubmits: number }
  /** Back to pending (not billed); "balance" stops the run's submits. */
  | { kind: "released"; reason: string | null; halt?: "balance"; unknownSubmits: number }
  /** Refused or given up: the engine fails it. */
  | {
      kind: "failed";
      task: TaskRow;
      to: "failed" | "rejected" | "held";
      reason: string;
      unknownSubmits: number;
    }
  /** Another process moved it on meanwhile. */
  | { kind: "lost"; unknownSubmits: number }
  /** The gateway answered and the store, unusable, could not record it: `what` it answered, for the person. */
  | { kind: "unrecorded"; what: string; error: unknown; unknownSubmits: number };

/**
 * The task claimed, with its turn at the pace come. Writes whose claim is a round trip of its
 * own (`claimFirst`) claim before the turn, so the claim cannot push a send past its turn into
 * the next one's second; others claim once the turn has come.
 */
async function claimInTurn(
  task: TaskRow,
  context: RunContext,
  mayStillSend: () => boolean,
): Promise<Claim | undefined> {
  const { signal } = context;
  const mayGo = () => !signal.aborted && mayStillSend();
  if (context.writes.claimFirst !== true) {
    await context.pace.acquire(signal).catch(() => undefined);
    return mayGo() ? await context.writes.claim(task) : undefined;
  }
  const claim = mayGo() ? await context.writes.claim(task) : undefined;
  if (claim === undefined || "refused" in claim) return claim;
  await context.pace.acquire(signal).catch(() => undefined);
  if (mayGo()) return claim;
  // Halted or stopping while it waited: never sent, so back to pending, nothing unknown.
  await context.store.releaseClaim(
    claim.claimed,
    { reason: null, unknownSubmits: 0 },
    context.clock.now(),
  );
  return undefined;
}

/**
 * `mayStillSend`: false once the run has halted (a 402) while this one waited its turn.
 * `answered`: called once the gateway has answered, before the store records the answer.
 */
export async function sendTask(
  task: TaskRow,
  context: RunContext,
  mayStillSend: () => boolean,
  answered?: () => void,
): Promise<Sent> {
  const { store, clock, emit, signal } = context;
  const claim = await claimInTurn(task, context, mayStillSend);
  if (claim === undefined) return { kind: "not-sent", unknownSubmits: 0 };
  if ("refused" in claim) return { kind: "not-sent", refused: claim.refused, unknownSubmits: 0 };
  const sent = claim.claimed;
  const outcome = await submitTask(sent, context, (chars) =>
    emit({ type: "text:progress", key: sent.key, label: sent.label, chars }),
  );
  answered?.();
  const { unknownSubmits } = outcome;
  const now = clock.now();
  switch (outcome.kind) {
    case "receipt": {
      const nextPollAt = now + context.settings.poll.firstAfterMs;
      const { taskId, status } = outcome;
      // The commit point: from here the task is polled, never submitted again.
      let recorded: Awaited<ReturnType<typeof context.writes.receipt>>;
      try {
        recorded = await context.writes.receipt({
          task: sent,
          taskId,
          status,
          nextPollAt,
          unknownSubmits,
        });
      } catch (error) {
        if (!isStoreUnusable(error)) throw error;
        const what = `${sent.label} is task ${gatewayText(taskId, 120)}`;
        return { kind: "unrecorded", what, error, unknownSubmits };
      }
      if (recorded === "lost") return { kind: "lost", unknownSubmits };
      if ("duplicateOf" in recorded) {
        const reason = duplicateIdReason(taskId, recorded.duplicateOf);
        return { kind: "failed", task: sent, to: "failed", reason, unknownSubmits };
      }
      // As recorded: its sidecars carry these without reading the row back.
      const submitted = { submitted_at: recorded.recordedAt, paid_run: sent.run_id };
      return {
        kind: "polling",
        task: { ...sent, ...submitted, state: status, task_id: taskId },
        nextPollAt,
        unknownSubmits,
      };
    }
    case "answer": {
      const files = outcome.result.files.map((file) => ({ ...file, contentType: "text/plain" }));
      const answered = { ...sent, cost: outcome.result.cost };
      let recorded: Awaited<ReturnType<typeof store.recordTextAnswer>>;
      try {
        recorded = await store.recordTextAnswer(answered, answerRow(outcome.result), files, now);
      } catch (error) {
        if (!isStoreUnusable(error)) throw error;
        const what = `${sent.label} was answered (${files.map((file) => file.path).join(", ")})`;
        return { kind: "unrecorded", what, error, unknownSubmits };
      }
      publish(context, recorded.events);
      if (!recorded.moved) return { kind: "lost", unknownSubmits };
      return {
        kind: "answered",
        task: { ...answered, state: TaskState.Downloaded },
        unknownSubmits,
      };
    }
    case "failed": {
      const failure = classifySubmitFailure(outcome.error, signal.aborted);
      if (failure.to !== "pending")
        return { kind: "failed", task: sent, ...failure, unknownSubmits };
      await store.releaseClaim(sent, { reason: failure.reason, unknownSubmits }, now);
      return { kind: "released", reason: failure.reason, halt: failure.halt, unknownSubmits };
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown submit outcome ${JSON.stringify(never)}`);
    }
  }
}

/** Why a task answered with another task's id fails: one result is not two. */
function duplicateIdReason(taskId: string, holder: string): string {
  const id = gatewayText(taskId, 120);
  return `the gateway answered with task id ${id}, which it gave to ${holder} already: one result is not counted as two`;
}

export type SubmitOutcome =
  | { kind: "receipt"; taskId: string; status: "submitted" | "processing"; unknownSubmits: number }
  | { kind: "answer"; result: TextTaskResult; unknownSubmits: number }
  | { kind: "failed"; error: Error; unknownSubmits: number };

/** Makes the call; never throws (a failure is an outcome). */
export async function submitTask(
  task: TaskRow,
  context: RunContext,
  onTextProgress: (chars: number) => void,
): Promise<SubmitOutcome> {
  const tally: CallTally = { unknown: 0 };
  const deps: PacedCallDeps = {
    pace: context.pace,
    retry: context.retry,
    clock: context.clock,
    random: context.random,
    emit: context.emit,
    signal: context.signal,
    holdUnknown: context.settings.retry.onUnknownSubmit === "hold",
  };
  try {
    if (task.lane === "text") {
      const result = await callTextTask(task, {
        client: context.client,
        paced: (call) => pacedCall(`text ${task.label}`, call, deps, tally),
        onProgress: onTextProgress,
        outputDir: context.outputDir,
        store: context.store,
        files: context.files,
        now: () => context.clock.now(),
        // Text answers report tokens, not money: the manifest's per-token price costs them.
        costOf: (usage) =>
          usageCost(ruleFor(context.settings.prices, JSON.parse(task.request)), usage),
      });
      context.pace.succeeded();
      return { kind: "answer", result, unknownSubmits: tally.unknown };
    }
    const body = JSON.parse(task.request) as Record<string, unknown>;
    // No abort signal: a submit under way finishes, so its receipt is not lost.
    const receipt = await pacedCall(
      `submit ${task.label}`,
      () => context.client.submit(task.endpoint, body),
      deps,
      tally,
    );
    context.pace.succeeded(receipt.rateLimitPerSecond);
    return {
      kind: "receipt",
      taskId: receipt.taskId,
      status: receipt.status === "processing" ? "processing" : "submitted",
      unknownSubmits: tally.unknown,
    };
  } catch (error) {
    return {
      kind: "failed",
      error: coerceError(error),
      unknownSubmits:
        tally.unknown + (error instanceof HeldSubmit || submitMayHaveArrived(error) ? 1 : 0),
    };
  }
}

/** What a failed submit means for its task, and for the run. */
export type SubmitFailure =
  /** Not sent or not billed: back to pending; "balance" stops the run's submits. */
  | { to: "pending"; reason: string | null; halt?: "balance" }
  /** The gateway refused the request (400, 401, 422): sending it again will not help. */
  | { to: "rejected"; reason: string }
  /** Retries gave up. */
  | { to: "failed"; reason: string }
  /** It may have made its task, and the manifest holds such tasks rather than pay twice. */
  | { to: "held"; reason: string };

export function classifySubmitFailure(error: Error, aborted: boolean): SubmitFailure {
  if (error instanceof GatewayError && error.code === ErrorCode.HttpPaymentRequired)
    // Not billed and not the task's fault: it waits for a later run.
    return { to: "pending", reason: error.message, halt: "balance" };
  if (error instanceof HeldSubmit) return { to: "held", reason: error.message };
  if (aborted) return { to: "pending", reason: null };
  const refused =
    error instanceof GatewayError && !isRetryable(error) && error.status !== undefined;
  return { to: refused ? "rejected" : "failed", reason: error.message };
}
