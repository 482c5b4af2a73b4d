import { nextTick, type Schedule, tickLabel } from "../manifest/index.js";
import type { Store } from "../store/index.js";

/**
 * Whether a one-shot run of a scheduled manifest (a system crontab's `gwrun run`) has a tick
 * to run. It has none when its tick's run already reached its end (done, or failed: running
 * it again would pay nothing and do nothing), or when no tick is due yet. A run stopped
 * before its end (budget, balance, interrupt) is continued instead.
 */

/** Run statuses of a tick that ran to its end. */
const ENDED = ["done", "failed"];

/** Why there is nothing to run at this tick, in one line; undefined when there is something. */
export async function idleTickReason(
  store: Pick<Store, "runOfTick">,
  name: string,
  schedule: Schedule,
  moment: { tick: number; due: boolean },
): Promise<string | undefined> {
  const { tick } = moment;
  if (!moment.due) return `${name}: no tick due yet; next tick due at ${tickWhen(schedule, tick)}`;
  const run = await store.runOfTick(name, tick);
  if (run === undefined || run.finished_at === null || !ENDED.includes(run.status))
    return undefined;
  const next = nextTick(schedule, tick);
  const retry =
    run.status === "failed" ? `; gwrun retry ${run.id} --failed redoes its failures` : "";
  return `${name}: tick ${tickLabel(tick, schedule)} already done (run ${run.id}, ${run.status}${retry}); next tick due at ${next === undefined ? "never" : tickWhen(schedule, next)}`;
}

/** A tick as the schedule names it, and as an instant: "2026-11-24T0600 Europe/Berlin (2026-11-24T05:00:00.000Z)". */
export function tickWhen(schedule: Schedule, tick: number): string {
  return `${tickLabel(tick, schedule)} ${schedule.timezone} (${new Date(tick).toISOString()})`;
}
