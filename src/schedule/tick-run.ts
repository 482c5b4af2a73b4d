import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { plural } from "../core/words.js";
import { type Schedule, tickLabel } from "../manifest/index.js";
import {
  type RunRow,
  type Store,
  TickStatus,
  type TickTrigger,
  TickTrigger as Trigger,
} from "../store/index.js";
import { pruneRuns } from "./prune.js";

/**
 * Runs one tick of a scheduled manifest while its lease is held — the same steps for the
 * scheduler and for a one-shot `gwrun run`: first any earlier tick whose run was cut short
 * (so no day is lost), then this tick, each recorded; then prune to `keep.runs`.
 */

/** Runs (or continues) a tick's run; `resume` is a run cut short, continued from its snapshot. */
export type TickRunner = (request: {
  tick: number;
  resume: RunRow | undefined;
}) => Promise<{ exitCode: number; runId: number | undefined }>;

export interface TickRunOptions {
  store: Store;
  name: string;
  schedule: Schedule;
  tick: number;
  trigger: TickTrigger;
  clock: Clock;
  run: TickRunner;
  /** One plain line for the log. */
  log: (line: string) => void;
}

/** Runs the tick (after any cut short before it); returns its run's exit code. */
export async function runTickUnderLease(options: TickRunOptions): Promise<number> {
  const { store, name, tick } = options;
  for (const earlier of await store.unfinishedTicks(name)) {
    if (earlier.tick === tick) continue;
    await runRecorded(options, earlier.tick, Trigger.Resumed, await runOf(store, earlier.run_id));
  }
  const cutShort = (await store.unfinishedTicks(name)).find((row) => row.tick === tick);
  const exitCode = await runRecorded(
    options,
    tick,
    options.trigger,
    cutShort === undefined ? undefined : await runOf(store, cutShort.run_id),
  );
  const keep = options.schedule.keepRuns;
  if (keep !== undefined) {
    const { pruned, files } = await pruneRuns(store, name, keep);
    // The runs kept keep their outputs and records, not every task's logged moves.
    await store.pruneTaskEvents();
    if (pruned.length > 0) {
      options.log(
        `${name}: pruned ${plural(pruned.length, "run")} beyond keep.runs ${keep} (${pruned.map((run) => run.id).join(", ")}; ${plural(files, "output file")})`,
      );
    }
  }
  return exitCode;
}

async function runOf(store: Store, runId: number | null): Promise<RunRow | undefined> {
  return runId === null ? undefined : store.run(runId);
}

async function runRecorded(
  options: TickRunOptions,
  tick: number,
  trigger: TickTrigger,
  resume: RunRow | undefined,
): Promise<number> {
  const { store, name, clock, log } = options;
  const label = tickLabel(tick, options.schedule);
  const id = await store.startTick({ name, tick, trigger }, clock.now());
  log(
    `${name}: tick ${label} fired (${trigger}${resume === undefined ? "" : `, run ${resume.id}`})`,
  );
  let end: { exitCode: number; runId: number | undefined };
  try {
    end = await options.run({ tick, resume });
  } catch (error) {
    // A run that throws is a failed tick; the schedule goes on.
    log(`${name}: tick ${label} could not run: ${coerceError(error).message}`);
    end = { exitCode: 1, runId: resume?.id };
  }
  // A run interrupted (exit 130) is resumed at the next start.
  const status = end.exitCode === 130 ? TickStatus.Interrupted : TickStatus.Finished;
  await store.finishTick(
    id,
    { runId: end.runId ?? null, exitCode: end.exitCode, status },
    clock.now(),
  );
  const run = end.runId === undefined ? "" : ` (run ${end.runId})`;
  log(
    end.exitCode === 130
      ? `${name}: tick ${label} was interrupted${run}; it continues at the next start`
      : `${name}: tick ${label} finished with exit ${end.exitCode}${run}`,
  );
  return end.exitCode;
}
