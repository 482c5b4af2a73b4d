import { coerceError, ErrorCode } from "../core/errors.js";
import { GatewayError, gatewayText } from "../gateway/index.js";
import type { ManifestSettings } from "../manifest/index.js";
import type { TaskRow } from "../store/index.js";

/**
 * When polling gives up on a task: after too many unreadable answers in a row, or when the
 * task has not finished long after it should have. Either way the task is still the
 * gateway's: `gwrun retry --stuck` polls it again.
 */

/** What the reason of a task given up on begins with (`retry --stuck` looks for it). */
export const STUCK_REASON = "no result after";

/** Unreadable poll answers in a row before a task is given up on. */
export const POLL_TROUBLE_LIMIT = 6;

/** Polls back off after an unreadable answer up to this many times `poll.every`. */
const MAX_BACKOFF_FACTOR = 16;

/**
 * How long a task may stay unfinished when the manifest sets no `poll.give_up_after`: many
 * times what the spec leads one to expect (images take a minute, clips several).
 */
export const GIVE_UP_AFTER_MS: Readonly<Record<string, number>> = {
  image: 15 * 60_000,
  video: 2 * 3_600_000,
};

export function isStuckReason(reason: string | null): boolean {
  return reason?.startsWith(STUCK_REASON) === true;
}

/** When polling gives up on a task that has not finished. */
export function giveUpAt(task: TaskRow, settings: ManifestSettings): number {
  const after =
    settings.poll.giveUpAfterMs ?? GIVE_UP_AFTER_MS[task.lane] ?? GIVE_UP_AFTER_MS.video;
  return (task.submitted_at ?? task.created_at) + (after as number);
}

/** The failure reason of a task still running at its deadline; `status` is what it last said. */
export function overdueReason(task: TaskRow, now: number, status: string): string {
  const waited = now - (task.submitted_at ?? task.created_at);
  const said = JSON.stringify(gatewayText(status, 40));
  return `${STUCK_REASON} ${spoken(waited)} (the gateway still says ${said})`;
}

/**
 * What a failed poll round got from the gateway, when it answered something unreadable or an
 * error; undefined when it could not be reached (that is waited out, not counted).
 */
export function unreadableAnswer(error: unknown): string | undefined {
  if (!(error instanceof GatewayError)) return undefined;
  if (error.code !== ErrorCode.BadResponse && error.status === undefined) return undefined;
  return coerceError(error).message;
}

/** The wait before the next poll after `troubles` unreadable answers in a row. */
export function troubleBackoffMs(troubles: number, everyMs: number): number {
  return everyMs * Math.min(MAX_BACKOFF_FACTOR, 2 ** Math.max(0, troubles - 1));
}

/** The failure reason of a task whose poll answers could not be read `troubles` times. */
export function unreadableReason(troubles: number, answer: string): string {
  return `${STUCK_REASON} ${troubles} unreadable poll answers; the gateway last sent: ${answer}`;
}

function spoken(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.round(ms / 1000)}s`;
  if (minutes < 120) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}
