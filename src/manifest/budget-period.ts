import { latestTick, nextTick } from "./ticks.js";

/**
 * The period a budget across runs counts in: the day (from midnight), the week (from Monday's
 * midnight) or the month (from the 1st) holding `now`, in the budget's time zone.
 */

export type Per = "day" | "week" | "month";

const STARTS: Readonly<Record<Per, string>> = {
  day: "0 0 * * *",
  week: "0 0 * * 1",
  month: "0 0 1 * *",
};

/** [`since`, `until`): the period holding `now`. */
export function periodAround(
  per: Per,
  timezone: string,
  now: number,
): { since: number; until: number } {
  const schedule = { cron: STARTS[per], timezone };
  const since = latestTick(schedule, now) ?? now;
  return { since, until: nextTick(schedule, now) ?? now };
}

/** "today", "this week", "this month": how messages name the period. */
export function periodName(per: Per): string {
  return per === "day" ? "today" : `this ${per}`;
}
