import type { Schedule } from "../manifest/index.js";
import { type TickTrigger, TickTrigger as Trigger } from "../store/index.js";

/** A tick this late is no longer on time but caught up, ms. */
export const LATE_MS = 60_000;

/** What to do with one due tick. */
export type DueTick =
  | { tick: number; action: "run"; trigger: TickTrigger }
  | { tick: number; action: "skipped" | "missed"; trigger: TickTrigger; reason: string };

/**
 * Decides, oldest first, what becomes of the ticks that came due since the last one handled,
 * by when each fell:
 * - while this scheduler's own run was going (up to `busyUntil`): `overlap: skip` skips it,
 *   `wait` runs it now;
 * - the newest, while idle and on time (within LATE_MS of `now`): run it;
 * - any other (the scheduler was down, the machine slept): `catch_up` decides — none marks each
 *   missed, latest runs only the newest, all runs each in order.
 */
export function decideDueTicks(
  due: readonly number[],
  context: { now: number; busyUntil: number; schedule: Pick<Schedule, "overlap" | "catchUp"> },
): DueTick[] {
  const { now, busyUntil, schedule } = context;
  const idle = due.filter((tick) => tick > busyUntil);
  const newest = idle.at(-1);
  const onTime = newest !== undefined && now - newest <= LATE_MS ? newest : undefined;
  const missed = onTime === undefined ? idle : idle.slice(0, -1);
  return due.map((tick): DueTick => {
    if (tick <= busyUntil) {
      return schedule.overlap === "wait"
        ? { tick, action: "run", trigger: Trigger.OnTime }
        : {
            tick,
            action: "skipped",
            trigger: Trigger.OnTime,
            reason: "the run of an earlier tick was still going",
          };
    }
    if (tick === onTime) return { tick, action: "run", trigger: Trigger.OnTime };
    const latest = tick === missed.at(-1) && onTime === undefined;
    if (schedule.catchUp === "all" || (schedule.catchUp === "latest" && latest)) {
      return { tick, action: "run", trigger: Trigger.CatchUp };
    }
    return {
      tick,
      action: "missed",
      trigger: Trigger.CatchUp,
      reason: `missed while no scheduler ran (catch_up: ${schedule.catchUp})`,
    };
  });
}
