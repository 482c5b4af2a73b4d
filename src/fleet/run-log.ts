import { FAILED_STATES, type PgStore } from "../store/index.js";

/**
 * The lines a `gwrun worker` logs per run it works: one when it starts, one when it ends (the
 * run settled, or the worker stops while the run goes on), with the run's tasks done and failed.
 */

export type RunWorkEnd = "ended" | "stopped";

/** "run 3 spring: started work". */
export function runStartedLine(run: { id: number; name: string }): string {
  return `run ${run.id} ${run.name}: started work`;
}

/** "run 3 spring: ended work, the run done: 11 done, 0 failed". */
export async function runEndedLine(
  store: PgStore,
  run: { id: number; name: string },
  end: RunWorkEnd,
): Promise<string> {
  const [{ states }, row] = await Promise.all([
    store.summaryOf({ run: run.id }),
    store.run(run.id),
  ]);
  const done = states.done ?? 0;
  const failed = FAILED_STATES.reduce((sum, state) => sum + (states[state] ?? 0), 0);
  const how =
    end === "stopped"
      ? "stopped work, the run goes on"
      : `ended work, the run ${row?.status ?? "gone"}`;
  return `run ${run.id} ${run.name}: ${how}: ${done} done, ${failed} failed`;
}
