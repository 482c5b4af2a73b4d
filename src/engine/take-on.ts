import { CLAIM_OWNER } from "../core/process.js";
import { factsOf, type Placement, placementOf } from "../plan/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
import type { RunContext } from "./context.js";
import { deliverOutputs } from "./deliver.js";
import type { EngineEvent, Stage } from "./events.js";
import { stageOf } from "./job-groups.js";

/**
 * Taking on a recorded task (at a run's start, or a dependant): its placement (`placementOf`,
 * decided in plan/) enacted in the store, and where the engine puts it next.
 */
export type TakenOn =
  | { to: "queue"; task: TaskRow; unknownSubmit: boolean }
  | { to: "poll" | "download" | "check" | "done"; task: TaskRow }
  | { to: "leave" };

/** The stage a task starts the run in once taken on (one left alone stays as recorded). */
export function stageTakenOn(taken: TakenOn, recorded: TaskRow): Stage {
  switch (taken.to) {
    case "queue":
      return "queued";
    case "poll":
      return "running";
    case "download":
    case "check":
      return "downloading";
    case "done":
      return "done";
    case "leave":
      return stageOf(recorded.state);
    default: {
      const never: never = taken;
      throw new Error(`unknown take-on ${JSON.stringify(never)}`);
    }
  }
}

export async function takeOnTask(task: TaskRow, context: RunContext): Promise<TakenOn> {
  const { store, clock, force, postprocess, outputDir } = context;
  const now = clock.now();
  const facts = await factsOf(
    task,
    {
      outputs: () => store.outputsOf(task.key),
      copies: () => store.copiesOf(task.key),
      publications: () => store.publicationsOf(task.key),
    },
    {
      now,
      force,
      ownClaim: CLAIM_OWNER,
      checksRun: postprocess !== undefined,
      outputDir,
      publishedTo: context.settings.output.publish.map((target) => target.url),
    },
  );
  const placement = placementOf(task, facts);
  if (facts.found !== undefined && facts.found.missing.length > 0)
    context.emit(missingEvent(task, facts.found.missing, placement));
  switch (placement) {
    case "queue":
      return { to: "queue", task, unknownSubmit: false };
    case "poll":
    case "download":
    case "check":
    case "done":
      return { to: placement, task };
    case "leave":
      return { to: "leave" };
    case "deliver": {
      const { outputs, found } = facts;
      if (outputs !== undefined && found !== undefined) {
        const copies = await deliverOutputs(task, outputs, found.intact, {
          store,
          outputDir,
          now,
          files: context.files,
        });
        if (copies.length > 0)
          context.emit({
            type: "output:delivered",
            key: task.key,
            job: task.job_id,
            label: task.label,
            outputs: copies.length,
          });
      }
      return { to: "done", task };
    }
    case "release-unknown": {
      // The process that claimed it died mid-submit: the gateway may have made a task.
      if (!(await store.releaseClaim(task, { unknownSubmits: 1 }, now))) return { to: "leave" };
      const released = { ...task, state: TaskState.Pending, claimed_by: null };
      return {
        to: "queue",
        task: { ...released, unknown_submits: task.unknown_submits + 1 },
        unknownSubmit: true,
      };
    }
    case "recheck":
      return (await store.recheck(task, now))
        ? { to: "check", task: { ...task, state: TaskState.Downloaded } }
        : { to: "leave" };
    case "redownload":
      return (await store.redownload(task, now))
        ? { to: "download", task: { ...task, state: TaskState.Completed } }
        : { to: "leave" };
    case "redo":
      return (await store.requeue(task, [TaskState.Done], null, now))
        ? {
            to: "queue",
            task: { ...task, state: TaskState.Pending, task_id: null },
            unknownSubmit: false,
          }
        : { to: "leave" };
    default: {
      const never: never = placement;
      throw new Error(`unknown placement ${String(never)}`);
    }
  }
}

/**
 * A pending first take of a `from:` task goes only once its upstream is done, which binds its
 * request: until `upstream` (when the caller knows it) is done, it waits — at a run's start it is
 * left to its upstream's take-on, which binds it afresh and starts it. A later take (a
 * regeneration after review) was bound when it was made, and goes.
 */
export function waitsForUpstream(task: TaskRow, upstream?: Pick<TaskRow, "state">): boolean {
  if (task.upstream_key === null || task.state !== TaskState.Pending || task.take !== 1)
    return false;
  return upstream?.state !== TaskState.Done;
}

/**
 * A pending task that goes in its turn, which a run reads from the store as its queue drains
 * rather than holding: no stand-in, and not a first take waiting for its upstream. The store's
 * `taskPage` picks the same ("image-queue", "video-queue").
 */
export function queuedFromStore(task: TaskRow): boolean {
  return (
    task.state === TaskState.Pending &&
    task.placeholder === 0 &&
    !(task.upstream_key !== null && task.take === 1)
  );
}

/** A done task some of whose files are gone: which, and what the run does about it. */
function missingEvent(
  task: TaskRow,
  missing: readonly { idx: number; path: string | null }[],
  placement: Placement,
): EngineEvent {
  return {
    type: "output:missing",
    key: task.key,
    job: task.job_id,
    label: task.label,
    files: missing.map((file) => file.path ?? `output ${file.idx + 1}`),
    action: placement === "redownload" ? "download" : "redo",
  };
}
