import { parse } from "yaml";
import { withFolderNames } from "./publish.js";
import { DEFAULTS } from "./settings.js";
import { dateOf, dueTick, localTimeZone, type Schedule, tickIdentity, tickLabel } from "./ticks.js";
import type { ManifestSettings } from "./types.js";

/**
 * What a run is for. A scheduled run belongs to one tick: the latest one due at the time it
 * is asked for (the scheduler asks at the tick itself), and `{date}` / `{tick}` name it in the
 * schedule's zone. An unscheduled run has no tick; its `{date}` is the day it started.
 */
export interface RunMoment {
  /** The tick, ms; undefined for an unscheduled run. */
  tick: number | undefined;
  /** The tick as it enters task keys (UTC ISO). */
  tickId: string | undefined;
  /** `{date}`: "2026-11-23". */
  date: string;
  /** `{tick}`: "2026-11-23T0600"; undefined for an unscheduled run. */
  tickLabel: string | undefined;
  /** False when the tick is still ahead of the time asked for (none fell in the past year). */
  due: boolean;
}

/** Template names a manifest gets from its run: `{{date}}` always, `{{tick}}` when scheduled. */
export const MOMENT_NAMES = ["date", "tick"] as const;

/** The moment of a run asked for at `at` (ms). */
export function runMoment(schedule: Schedule | undefined, at: number): RunMoment {
  if (schedule === undefined) {
    return {
      tick: undefined,
      tickId: undefined,
      date: dateOf(at, localTimeZone()),
      tickLabel: undefined,
      due: true,
    };
  }
  const { tick, due } = dueTick(schedule, at) ?? { tick: at, due: true };
  return {
    tick,
    tickId: tickIdentity(tick),
    date: dateOf(tick, schedule.timezone),
    tickLabel: tickLabel(tick, schedule),
    due,
  };
}

/** The template values of a moment. */
export function momentVars(moment: RunMoment): [string, unknown][] {
  return moment.tickLabel === undefined
    ? [["date", moment.date]]
    : [
        ["date", moment.date],
        ["tick", moment.tickLabel],
      ];
}

/** What `{name}`, `{date}` and `{tick}` stand for in a run of `settings` at `moment`. */
export function folderNamesOf(settings: Pick<ManifestSettings, "name">, moment: RunMoment) {
  return { name: settings.name, date: moment.date, tick: moment.tickLabel };
}

/** `output.dir` with `{name}`, `{date}` and `{tick}` filled in (relative to the working folder). */
export function outputDirOf(
  settings: Pick<ManifestSettings, "name" | "output">,
  moment: RunMoment,
): string {
  return withFolderNames(settings.output.dir, folderNamesOf(settings, moment));
}

/**
 * The `output.dir` a manifest's text names, as written (with `{name}` and the like), or the
 * default; undefined when the text does not read as YAML.
 */
export function outputDirTemplate(text: string): string | undefined {
  try {
    const doc = parse(text) as { output?: { dir?: unknown } } | null;
    const dir = doc?.output?.dir;
    return typeof dir === "string" ? dir : DEFAULTS.outputDir;
  } catch {
    return undefined;
  }
}
