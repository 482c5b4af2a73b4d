import { coerceError, ErrorCode } from "../core/errors.js";
import { GatewayError, isRetryable, mayHaveArrived } from "../gateway/index.js";
import type { TaskRow } from "../store/index.js";
import type { RunContext } from "./context.js";
import { type CallTally, type PacedCallDeps, pacedCall } from "./paced-call.js";
import { callTextTask, type TextTaskResult } from "./text-tasks.js";

/**
 * Submitting one claimed task: a media submit (answered with a task id) or a text call
 * (answered in full), under the run's pace and retry policy; and what a failed submit means.
 */

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
  };
  try {
    if (task.lane === "text") {
      const result = await callTextTask(task, {
        client: context.client,
        paced: (call) => pacedCall(`text ${task.label}`, call, deps, tally),
        onProgress: onTextProgress,
        outputDir: context.outputDir,
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
      unknownSubmits: tally.unknown + (mayHaveArrived(error) ? 1 : 0),
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
  | { to: "failed"; reason: string };

export function classifySubmitFailure(error: Error, aborted: boolean): SubmitFailure {
  if (error instanceof GatewayError && error.code === ErrorCode.HttpPaymentRequired)
    // Not billed and not the task's fault: it waits for a later run.
    return { to: "pending", reason: error.message, halt: "balance" };
  if (aborted) return { to: "pending", reason: null };
  const refused =
    error instanceof GatewayError && !isRetryable(error) && error.status !== undefined;
  return { to: refused ? "rejected" : "failed", reason: error.message };
}
