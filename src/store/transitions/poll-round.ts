import { type ArgsOf, batch, lock, type Program, perTask, transaction } from "../program.js";
import type { TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { PollOutcome } from "../transition-inputs.js";
import { failOf, pollStepOf } from "../transition-patches.js";

/** States whose outputs wait for a download. */
const DOWNLOADS_WAIT: readonly TaskState[] = [TaskState.Completed, TaskState.Downloaded];

/**
 * One poll round in one transaction and a handful of batches, whatever its size: running
 * tasks note progress, completed ones record their output links and cost, failed ones their
 * reason. `lost` names the tasks another process had already moved on; `downloadable` those
 * whose outputs now wait for a download.
 */
export function* pollRound(
  round: readonly { task: TaskRow; outcome: PollOutcome }[],
  now: number,
): Program<{ events: TaskEvent[]; lost: Set<string>; downloadable: string[] }> {
  yield* lock(round.map((entry) => entry.task.key));
  const steps = round.map(({ task, outcome }) => ({ task, step: pollStepOf(task, outcome, now) }));
  const moved = yield* batch("moves", {
    moves: steps.flatMap(({ task, step }) => {
      if (step.kind === "note") return [];
      const transition = step.kind === "move" ? step.move : failOf(step.from, step.to, step.reason);
      return [{ key: task.key, transition }];
    }),
    now,
  });
  const noted = yield* batch("notes", {
    notes: steps.flatMap(({ task, step }) =>
      step.kind === "note" ? [{ key: task.key, ...step }] : [],
    ),
  });
  yield* batch("insertOutputs", {
    outputs: steps.flatMap(({ task, step }) =>
      step.kind === "move" && step.links !== null && moved.has(task.key)
        ? [{ key: task.key, links: step.links }]
        : [],
    ),
  });
  const events: TaskEvent[] = [];
  const lost = new Set<string>();
  const downloadable: string[] = [];
  for (const { task, step } of steps) {
    if (!(step.kind === "note" ? noted : moved).has(task.key)) lost.add(task.key);
    else if (step.kind === "fail") events.push(failedEvent(task, step.to, step.reason));
    else {
      events.push(...step.events);
      if (step.kind === "move" && DOWNLOADS_WAIT.includes(step.move.to))
        downloadable.push(task.key);
    }
  }
  return { events, lost, downloadable };
}

export const pollRounds = {
  /** PostgreSQL's fleet adds the download jobs of the round's tasks (`../postgres/fleet-runs.ts`). */
  recordPollRound: perTask(
    transaction(function* (...args: ArgsOf<"recordPollRound">) {
      const { events, lost } = yield* pollRound(...args);
      return { events, lost };
    }),
  ),
};
