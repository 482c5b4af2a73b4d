import { Cron } from "croner";

/**
 * The period a budget across runs counts in: the day (from midnight), the week (from Monday's
 * midnight) or the month (from the 1st) holding `now`, in the budget's time zone. One rule for
 * a run's submits, a fleet's claims (timed by the database's clock), `plan` and `gwrun budget`.
 */

export type Per = "day" | "week" | "month";

const STARTS: Readonly<Record<Per, string>> = {
  day: "0 0 * * *",
  week: "0 0 * * 1",
  month: "0 0 1 * *",
};

/** Far enough back to meet the start of any period holding a moment (a month and a day). */
const LONGEST_MS = 32 * 86_400_000;

/** [`since`, `until`): the period holding `now`. */
export function periodAround(
  per: Per,
  timezone: string,
  now: number,
): { since: number; until: number } {
  const cron = new Cron(STARTS[per], { timezone, paused: true });
  // The last start at or before `now`: a period starts at most once a day, so this is short.
  let since = now - LONGEST_MS;
  for (let next = cron.nextRun(new Date(since)); next !== null && next.getTime() <= now; ) {
    since = next.getTime();
    next = cron.nextRun(next);
  }
  return { since, until: cron.nextRun(new Date(now))?.getTime() ?? now };
}

/** "today", "this week", "this month": how messages name the period. */
export function periodName(per: Per): string {
  return per === "day" ? "today" : `this ${per}`;
}
