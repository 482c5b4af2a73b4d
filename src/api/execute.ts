import { checkForRun, executeChecked, INVALID } from "./execute-checked.js";
import type { Executed, ExecuteOptions, RunFlags, RunHooks } from "./run-hooks.js";
import { runTickOnce } from "./tick-once.js";

/**
 * Running a manifest, shared by `run`, `resume` and `retry`, and by the API: check it, take a
 * scheduled manifest's lease and record its tick, then open, record, drive and end its run.
 * What the caller hears goes through its `RunHooks`.
 */

export type {
  Executed,
  ExecuteOptions,
  RunFlags,
  RunHooks,
  Underway,
} from "./run-hooks.js";

/**
 * Checks a manifest and runs it. A scheduled manifest runs under its lease as one tick (the
 * latest due at `at`), recorded.
 */
export async function executeManifest(
  file: string,
  text: string,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
  options: ExecuteOptions = {},
): Promise<Executed> {
  const checked = await checkForRun(file, text, hooks, options.at ?? Date.now(), options.rows);
  if (checked === undefined) return INVALID;
  const schedule = checked.expanded.settings?.schedule;
  const { tick, due } = checked.expanded.moment;
  if (schedule === undefined || tick === undefined) {
    return executeChecked(file, checked, runId, flags, hooks);
  }
  const name = checked.expanded.settings?.name ?? file;
  return runTickOnce({ file, checked, runId, flags, hooks }, { name, schedule, tick, due });
}
