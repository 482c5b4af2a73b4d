import { gatewayText, isDeclined } from "../gateway/index.js";
import { REFUSED, type TaskRow, TaskState, type TextAnswerRow } from "../store/index.js";
import { publish, type RunContext } from "./context.js";
import { recordFailure } from "./dependants.js";

/**
 * A text answer that refused feeds nothing downstream. A refusal is the vendor's refusal field
 * (chat, responses, a messages `stop_details` explanation), a stop or finish reason that says
 * the model declined (messages `refusal`, `content_filter`, native `SAFETY` and its kin), or an
 * answer with no text and no tool call. Its task fails with a reason that says so and keeps the
 * vendor's finish reason, so `gwrun retry --failed` asks again; its dependants are skipped with
 * "upstream X refused: …". Decided here for the engine and the fleet's workers alike, at the
 * step that would otherwise mark the answered task done.
 */

/** Characters of the model's own words kept in the reason. */
const WORDS_KEPT = 300;

type Answer = Pick<TextAnswerRow, "text" | "refusal" | "finish_reason" | "tool_calls">;

/** Why an answer cannot feed its dependants, starting "refused: "; null when it answered. */
export function refusalOf(answer: Answer): string | null {
  const blank = answer.text.trim() === "";
  const silent = blank && !hasToolCalls(answer.tool_calls);
  if (answer.refusal === null && !isDeclined(answer.finish_reason) && !silent) return null;
  const words = answer.refusal === null ? "" : gatewayText(answer.refusal, WORDS_KEPT);
  const what = words !== "" ? words : blank ? "no text" : "the answer was cut short";
  return `${REFUSED}${what} (finish reason ${answer.finish_reason ?? "none"})`;
}

/**
 * A downloaded task with no checks to run becomes done, unless it is a text answer that
 * refused: then it fails saying so, and its dependants are skipped. True when it is done now.
 */
export async function finishUnchecked(context: RunContext, task: TaskRow): Promise<boolean> {
  if (task.lane === "text") {
    const answer = await context.store.textAnswer(task.key);
    const refused = answer === undefined ? null : refusalOf(answer);
    if (refused !== null) {
      await recordFailure(context, task, [TaskState.Downloaded], refused);
      return false;
    }
  }
  const events = await context.store.markDone(task, context.clock.now());
  publish(context, events);
  return events.length > 0;
}

function hasToolCalls(json: string): boolean {
  try {
    const calls: unknown = JSON.parse(json);
    return Array.isArray(calls) && calls.length > 0;
  } catch {
    return false;
  }
}
