import type { Clock } from "../core/clock.js";
import type { Emit, EngineEvent } from "../engine/index.js";
import type { FleetRunRow, LoggedMove, PgStore } from "../store/index.js";

/**
 * Following a run the fleet works: its task moves, read from the store's event log whichever
 * worker made them, told as the engine tells them, until the run has settled.
 */

/** How often the log is read: progress a person can watch, at little cost. */
const FOLLOW_EVERY_MS = 250;

export async function followRun(
  store: PgStore,
  runId: number,
  afterEvent: number,
  emit: Emit,
  clock: Clock,
  signal: AbortSignal,
): Promise<FleetRunRow | undefined> {
  let after = afterEvent;
  const told = new Set<string>();
  for (;;) {
    const moves = await store.fleet.movesSince(runId, after);
    for (const move of moves) {
      after = move.id;
      const event = eventOf(move, told);
      if (event !== undefined) emit(event);
    }
    if (moves.length > 0) continue;
    const run = await store.fleet.fleetRun(runId);
    if (run === undefined || run.status !== "running" || signal.aborted) return run;
    await clock.sleep(FOLLOW_EVERY_MS, signal).catch(() => {});
  }
}

/** `told`: the keys whose receipt was told (a later processing is progress, not a receipt). */
function eventOf(move: LoggedMove, told: Set<string>): EngineEvent | undefined {
  const named = { key: move.key, job: move.job_id, label: move.label };
  const state = move.type.replace(/^job:/, "");
  switch (state) {
    case "submitting":
      told.delete(move.key);
      return { type: "task:submitting", ...named };
    case "submitted":
    case "processing":
      if (told.has(move.key))
        return { type: "task:progress", ...named, progress: move.progress ?? 0 };
      told.add(move.key);
      return { type: "task:submitted", ...named, taskId: move.task_id ?? "" };
    case "completed":
      // Past the gateway: forgotten, so a long run holds only the tasks it has in flight.
      told.delete(move.key);
      return { type: "task:completed", ...named, cost: move.cost, outputs: move.outputs };
    case "downloaded":
      return { type: "task:postprocessing", ...named };
    case "done":
      return { type: "task:done", ...named };
    case "failed":
    case "expired":
    case "rejected":
    case "held":
    case "skipped":
      told.delete(move.key);
      return { type: "task:failed", ...named, state, reason: move.reason ?? state };
    default:
      return undefined;
  }
}
