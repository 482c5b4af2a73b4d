import { Cron } from "croner";
import { coerceError } from "../core/errors.js";

/**
 * Schedule ticks: when a scheduled manifest is due, computed with croner in the schedule's
 * time zone (so "0 6 * * *" in Europe/Berlin is 06:00 there on both sides of a daylight-saving
 * change), and how a tick is named in `{date}`, `{tick}` and job keys. All pure; times are ms.
 */

export interface Schedule {
  cron: string;
  /** IANA time zone, e.g. "Europe/Berlin". */
  timezone: string;
  /** A tick due while this manifest runs: skip it, or wait for the run to end. */
  overlap: "skip" | "wait";
  /** Ticks missed while no scheduler ran: none, only the latest, or all of them in order. */
  catchUp: "none" | "latest" | "all";
  /** Scheduled runs to keep (outputs and records); undefined keeps all. */
  keepRuns: number | undefined;
}

/** The machine's own time zone, the default of `schedule.timezone`. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Why a cron expression cannot be used (croner's words), or undefined when it can. */
export function cronProblem(cron: string): string | undefined {
  try {
    const job = new Cron(cron, { paused: true });
    if (job.nextRun(new Date(0)) === null) return "never matches a date";
    return undefined;
  } catch (error) {
    return coerceError(error).message.replace(/^CronPattern: /, "");
  }
}

/** True for a time zone name this Node knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function cronOf(schedule: Pick<Schedule, "cron" | "timezone">): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
}

/** The first tick strictly after `after`; undefined when the expression never matches again. */
export function nextTick(
  schedule: Pick<Schedule, "cron" | "timezone">,
  after: number,
): number | undefined {
  return cronOf(schedule).nextRun(new Date(after))?.getTime();
}

/** The next `count` ticks strictly after `after`. */
export function nextTicks(
  schedule: Pick<Schedule, "cron" | "timezone">,
  after: number,
  count: number,
): number[] {
  return cronOf(schedule)
    .nextRuns(count, new Date(after))
    .map((date) => date.getTime());
}

/**
 * Ticks in (`after`, `until`], oldest first, at most `limit` of them (the newest are kept when
 * there are more, with `dropped` saying how many older ones were left out).
 */
export function ticksBetween(
  schedule: Pick<Schedule, "cron" | "timezone">,
  after: number,
  until: number,
  limit = 10_000,
): { ticks: number[]; dropped: number } {
  const cron = cronOf(schedule);
  const ticks: number[] = [];
  let dropped = 0;
  let at = cron.nextRun(new Date(after));
  while (at !== null && at.getTime() <= until) {
    ticks.push(at.getTime());
    if (ticks.length > limit) {
      ticks.shift();
      dropped += 1;
    }
    at = cron.nextRun(at);
  }
  return { ticks, dropped };
}

/** Windows looked back through for the latest tick, shortest first (ms). */
const LOOK_BACK = [3_600_000, 86_400_000, 8 * 86_400_000, 32 * 86_400_000, 367 * 86_400_000];

/** The latest tick at or before `at`, within a year; undefined when there is none. */
export function latestTick(
  schedule: Pick<Schedule, "cron" | "timezone">,
  at: number,
): number | undefined {
  for (const window of LOOK_BACK) {
    const { ticks } = ticksBetween(schedule, at - window, at, 1);
    if (ticks.length > 0) return ticks[0];
  }
  return undefined;
}

/** A run asked for this little before a tick belongs to it: a cron line that fires early, ms. */
export const EARLY_MS = 30_000;

/**
 * The tick a run asked for at `at` belongs to: the latest at or before `at`, or the next one
 * when it is at most EARLY_MS ahead (and nearer than a tenth of the gap from the last, so a
 * schedule of seconds keeps its ticks apart). `due` is false for a tick still ahead: a pattern
 * with no tick in the past year (29 February) names its next one. Undefined when there is none.
 */
export function dueTick(
  schedule: Pick<Schedule, "cron" | "timezone">,
  at: number,
): { tick: number; due: boolean } | undefined {
  const latest = latestTick(schedule, at);
  const next = nextTick(schedule, at);
  if (next === undefined) return latest === undefined ? undefined : { tick: latest, due: true };
  const early = Math.min(EARLY_MS, latest === undefined ? EARLY_MS : (next - latest) / 10);
  if (next - at <= early) return { tick: next, due: true };
  return latest === undefined ? { tick: next, due: false } : { tick: latest, due: true };
}

/** Calendar fields of an instant in a time zone. */
function partsIn(at: number, timezone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return Object.fromEntries(
    format.formatToParts(new Date(at)).map((part) => [part.type, part.value]),
  );
}

/** `{date}`: the tick's date where the schedule lives, "2026-11-23". */
export function dateOf(at: number, timezone: string): string {
  const parts = partsIn(at, timezone);
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/**
 * `{tick}`: the tick's local date and time, safe in file names and sorting as time does:
 * "2026-11-23T0600" (seconds added when the expression has a seconds field).
 */
export function tickLabel(at: number, schedule: Pick<Schedule, "cron" | "timezone">): string {
  const parts = partsIn(at, schedule.timezone);
  const seconds = schedule.cron.trim().split(/\s+/).length === 6 ? parts.second : "";
  return `${dateOf(at, schedule.timezone)}T${parts.hour}${parts.minute}${seconds}`;
}

/** A tick as it enters job keys: the instant, in UTC, independent of the zone it was named in. */
export function tickIdentity(at: number): string {
  return new Date(at).toISOString();
}
