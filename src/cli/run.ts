import { readFile } from "node:fs/promises";
import { ErrorCode, GwError } from "../core/errors.js";
import { seededRandom } from "../core/random.js";
import { plural } from "../core/words.js";
import { isStuckReason } from "../engine/index.js";
import { nextTakes } from "../plan/index.js";
import {
  FINAL_STATES,
  type RunRow,
  type TaskRow,
  TaskState,
  UNDONE_STATES,
} from "../store/index.js";
import { type ExecuteOptions, executeManifest, type RunFlags } from "./execute.js";
import { ExitCode } from "./exit-codes.js";
import { err } from "./output.js";
import { findRun, storeAt, withExistingStore } from "./store.js";

export type { RunFlags } from "./execute.js";

/** `gwrun run <manifest>` (and bare `gwrun <manifest>`): a new run of the manifest. */
export async function runManifest(file: string, flags: RunFlags): Promise<ExitCode> {
  const text = await readFile(file, "utf8");
  const at = flags.at === undefined ? undefined : parseTime(flags.at);
  return (await executeManifest(file, text, undefined, flags, { at })).exit;
}

/** `--at`: an ISO 8601 time; without an offset it is the machine's local time. */
function parseTime(value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new GwError(ErrorCode.Usage, `--at: "${value}" is not a time`, {
      hint: "write it as ISO 8601, e.g. 2026-11-20T06:00+01:00 or 2026-11-20T05:00Z",
    });
  }
  return ms;
}

/** `gwrun resume [run]`: continues a run from the manifest snapshot stored with it. */
export async function resumeRun(ref: string | undefined, flags: RunFlags): Promise<ExitCode> {
  const at = storeAt(flags);
  const run = await withExistingStore(at, (store) => findRun(store, at.location, ref));
  return (await executeManifest(run.manifest_path, run.manifest_text, run.id, flags, atOf(run)))
    .exit;
}

/** A run continues as of its own tick (or start): its `{date}` and task keys stay the same. */
function atOf(run: RunRow): ExecuteOptions {
  return { at: run.tick ?? run.started_at };
}

export type RetryFlags = RunFlags & {
  failed?: boolean;
  expired?: boolean;
  held?: boolean;
  stuck?: boolean;
  rejected?: boolean;
};

/**
 * `gwrun retry [run] --failed|--expired|--held|--stuck`: puts those tasks back to pending
 * (stuck ones back to polling: the gateway still holds them) and resumes.
 */
export async function retryRun(ref: string | undefined, flags: RetryFlags): Promise<ExitCode> {
  if (![flags.failed, flags.expired, flags.held, flags.stuck, flags.rejected].includes(true)) {
    throw new GwError(
      ErrorCode.Usage,
      "say what to retry: --failed, --expired, --held, --stuck, --rejected, or some",
    );
  }
  const states = UNDONE_STATES.filter((state) =>
    state === TaskState.Expired
      ? flags.expired === true
      : state === TaskState.Held
        ? flags.held === true
        : flags.failed === true,
  );
  const at = storeAt(flags);
  const retried = await withExistingStore(at, async (store) => {
    const found = await findRun(store, at.location, ref);
    let moved = 0;
    let unfinished = 0;
    const now = Date.now();
    const tasks = await store.tasksOf(found.id);
    if (flags.rejected === true) {
      const rejected = (await store.reviewsOf({ run: found.id }))
        .filter((review) => review.decision === "rejected")
        .map((review) => review.job_key);
      const takes = nextTakes(tasks, new Set(rejected), seededRandom(`${process.pid}:${now}`));
      await store.recordTasks(found.id, takes, now);
      moved += takes.length;
    }
    for (const task of tasks) {
      if (flags.stuck === true && isStuck(task) && (await store.repoll(task, now))) moved += 1;
      else if (states.includes(task.state) && (await store.requeue(task, [task.state], null, now)))
        moved += 1;
      else if (!FINAL_STATES.includes(task.state)) unfinished += 1;
    }
    return { run: found, moved, unfinished };
  });
  const { run, moved, unfinished } = retried;
  if (moved === 0) {
    // Going on would submit the run's unfinished tasks: that is `resume`, asked for by name.
    const named = [
      ...states,
      ...(flags.stuck === true ? ["stuck"] : []),
      ...(flags.rejected === true ? ["rejected-by-review"] : []),
    ];
    const which = `${named.slice(0, -1).join(", ")}${named.length > 1 ? " or " : ""}${named.at(-1)}`;
    err(`gwrun: run ${run.id} has no ${which} tasks: nothing to retry, nothing submitted`);
    if (unfinished > 0)
      err(`  its ${plural(unfinished, "unfinished task")} go on with: gwrun resume ${run.id}`);
    return ExitCode.Ok;
  }
  const how = flags.rejected === true ? ", rejected outputs as new takes" : "";
  err(
    `gwrun: ${plural(moved, "task")} of run ${run.id} back to pending (stuck ones to polling${how})`,
  );
  return (await executeManifest(run.manifest_path, run.manifest_text, run.id, flags, atOf(run)))
    .exit;
}

/** A failed task the gateway still holds, given up on by polling. */
function isStuck(task: TaskRow): boolean {
  return task.state === TaskState.Failed && task.task_id !== null && isStuckReason(task.reason);
}
