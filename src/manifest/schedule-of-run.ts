import { cronProblem, isTimeZone, localTimeZone, type Schedule } from "./ticks.js";
import { readYamlValue } from "./yaml-syntax.js";

/**
 * `schedule:`'s cron and zone of a manifest as a run recorded it, so a record names the run's
 * tick as its folders do (`2026-11-23T0600` in the schedule's zone). Undefined when it has no
 * schedule that checks, as a scheduled run could not have started with one.
 */
export function scheduleOfRun(
  text: string,
  file: string,
): Pick<Schedule, "cron" | "timezone"> | undefined {
  let given: { cron?: unknown; timezone?: unknown } | undefined;
  try {
    given = (readYamlValue(text, file) as { schedule?: typeof given } | null)?.schedule;
  } catch {
    return undefined;
  }
  const { cron, timezone = localTimeZone() } = given ?? {};
  if (typeof cron !== "string" || cronProblem(cron) !== undefined) return undefined;
  if (typeof timezone !== "string" || !isTimeZone(timezone)) return undefined;
  return { cron, timezone };
}
