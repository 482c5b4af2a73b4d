/**
 * A run's engine events, scripted, and the run state and view they fold into: for the tests of
 * what draws a run (the reporters, the dashboard).
 */

import { type EngineEvent, emptyStages, type StageCounts } from "../../src/engine/index.js";
import { applyEvent, createRunState, type RunState } from "../../src/ui/run-state.js";
import { type RunView, viewOf } from "../../src/ui/run-view.js";

/**
 * A run start with job ids of `tasks` queued tasks each (or the stages given; `skipped` ones
 * count as failed; `awaiting` ones are still to be made from upstream outputs).
 */
export function started(
  groups: Record<string, number | (Partial<StageCounts> & { skipped?: number; awaiting?: number })>,
  extra: Partial<Extract<EngineEvent, { type: "run:started" }>> = {},
): EngineEvent {
  const list = Object.entries(groups).map(([job, spec]) => {
    const {
      skipped = 0,
      awaiting,
      ...given
    } = typeof spec === "number" ? { queued: spec, awaiting: undefined } : spec;
    const stages = { ...emptyStages(), ...given };
    stages.failed += skipped;
    const tasks = Object.values(stages).reduce((a, b) => a + b, 0);
    return { job, family: `fam-${job}`, lane: "image", tasks, stages, skipped, awaiting };
  });
  return {
    type: "run:started",
    runId: 7,
    jobs: list.length,
    tasks: list.reduce((n, g) => n + g.tasks, 0),
    awaiting: list.reduce((n, g) => n + (g.awaiting ?? 0), 0),
    alreadyDone: list.reduce((n, g) => n + g.stages.done, 0),
    name: "spring",
    outputDir: "/work/out/spring",
    maxCost: 25,
    spent: 0,
    paid: 0,
    simulator: false,
    groups: list,
    ...extra,
  };
}

/** The events of one task going through, from submit to done. */
export function through(job: string, n: number, cost = 0.5): EngineEvent[] {
  const key = `${job}-${n}`;
  const label = key;
  return [
    { type: "task:submitting", key, job, label },
    { type: "task:submitted", key, job, label, taskId: `t-${key}` },
    { type: "task:progress", key, job, label, progress: 50 },
    { type: "task:completed", key, job, label, cost, outputs: 1 },
    { type: "output:downloaded", key, job, label, path: `/out/${key}.png`, bytes: 10 },
    { type: "task:done", key, job, label },
  ];
}

/** Folds `events` in, one every `stepMs` from `t0`; returns the state and a view at `at`. */
export function play(
  events: readonly EngineEvent[],
  options: { t0?: number; stepMs?: number; at?: number; state?: RunState } = {},
): { state: RunState; view: RunView; now: number } {
  const state = options.state ?? createRunState();
  let now = options.t0 ?? 1_000_000;
  for (const event of events) {
    applyEvent(state, event, now);
    now += options.stepMs ?? 0;
  }
  const at = options.at ?? now;
  return { state, view: viewOf(state, at, "/work"), now: at };
}
