import { ErrorCode, GwError } from "../core/errors.js";
import { readNamedFile } from "../core/file-gate.js";
import { seededRandom } from "../core/random.js";
import { plural } from "../core/words.js";
import { isStuckReason } from "../engine/index.js";
import { nextTakes } from "../plan/index.js";
import { recordedRows } from "../run/index.js";
import {
  FINAL_STATES,
  type RunRow,
  type TaskRow,
  TaskState,
  UNDONE_STATES,
} from "../store/index.js";
import {
  type Executed,
  type ExecuteOptions,
  executeManifest,
  type RunFlags,
  type RunHooks,
} from "./execute.js";
import { ExitCode } from "./exit-codes.js";
import { reviewedRun } from "./reviewed-run.js";
import { findRun, storeAt, withExistingStore } from "./store.js";

/**
 * A new run of a manifest, a recorded run resumed, a run's failed work retried: what `gwrun
 * run`, `resume` and `retry` do, and the API's `run`, `resume` and `retry`, told through hooks.
 */

/** A new run of the manifest in `file`, as of `at` (ms, ISO 8601 text, or now). */
export async function runManifestWith(
  file: string,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const text = await readNamedFile(file);
  const at = flags.at === undefined ? undefined : parseTime(flags.at);
  return executeManifest(file, text, undefined, flags, hooks, { at });
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

/** Continues a run (`ref`: its id, default the latest) from the manifest snapshot stored with it. */
export async function resumeRunWith(
  ref: string | undefined,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const at = storeAt(flags);
  const { run, rows } = await withExistingStore(at, async (store) => {
    const found = await findRun(store, at.location, ref);
    return { run: found, rows: await recordedRows(store, found.id) };
  });
  return executeManifest(run.manifest_path, run.manifest_text, run.id, flags, hooks, {
    ...atOf(run),
    rows,
  });
}

/** A run continues as of its own tick (or start): its `{date}` and task keys stay the same. */
function atOf(run: RunRow): ExecuteOptions {
  return { at: run.tick ?? run.started_at };
}

/** Which of a run's tasks a retry puts back: at least one must be asked for. */
export interface RetryChoice {
  /**
   * Failed, rejected and skipped tasks.
   * @default false
   */
  failed?: boolean;
  /**
   * Expired tasks (the task or its outputs' links were gone at the gateway).
   * @default false
   */
  expired?: boolean;
  /**
   * Held tasks (their submit may have made the task: this may pay twice).
   * @default false
   */
  held?: boolean;
  /**
   * Tasks polling gave up on: polled again.
   * @default false
   */
  stuck?: boolean;
  /**
   * Outputs rejected in review: a new take of each.
   * @default false
   */
  rejected?: boolean;
}

/**
 * Puts the chosen tasks of a run back to pending (stuck ones back to polling: the gateway still
 * holds them) and resumes it. With none to put back, nothing is submitted (exit 0).
 */
export async function retryRunWith(
  ref: string | undefined,
  flags: RunFlags & RetryChoice,
  hooks: RunHooks,
): Promise<Executed> {
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
  const { run, moved, unfinished, rows } = await withExistingStore(at, async (store) => {
    const found =
      flags.rejected === true
        ? await reviewedRun(store, at.location, ref, "rejected", "retry --rejected")
        : await findRun(store, at.location, ref);
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
      hooks.say(
        `gwrun: run ${found.id} (${found.name}): ${plural(takes.length, "new take")} of rejected outputs`,
      );
      moved += takes.length;
    }
    for (const task of tasks) {
      if (flags.stuck === true && isStuck(task) && (await store.repoll(task, now))) moved += 1;
      else if (states.includes(task.state) && (await store.requeue(task, [task.state], null, now)))
        moved += 1;
      else if (!FINAL_STATES.includes(task.state)) unfinished += 1;
    }
    return { run: found, moved, unfinished, rows: await recordedRows(store, found.id) };
  });
  if (moved === 0) {
    // Going on would submit the run's unfinished tasks: that is `resume`, asked for by name.
    const named = [
      ...states,
      ...(flags.stuck === true ? ["stuck"] : []),
      ...(flags.rejected === true ? ["rejected-by-review"] : []),
    ];
    const which = `${named.slice(0, -1).join(", ")}${named.length > 1 ? " or " : ""}${named.at(-1)}`;
    hooks.say(
      `gwrun: run ${run.id} (${run.name}) has no ${which} tasks: nothing to retry, nothing submitted`,
    );
    if (unfinished > 0)
      hooks.say(
        `  its ${plural(unfinished, "unfinished task")} go on with: gwrun resume ${run.id}`,
      );
    return { exit: ExitCode.Ok, runId: run.id };
  }
  const how = flags.rejected === true ? ", rejected outputs as new takes" : "";
  hooks.say(
    `gwrun: ${plural(moved, "task")} of run ${run.id} back to pending (stuck ones to polling${how})`,
  );
  return executeManifest(run.manifest_path, run.manifest_text, run.id, flags, hooks, {
    ...atOf(run),
    rows,
  });
}

/** A failed task the gateway still holds, given up on by polling. */
function isStuck(task: TaskRow): boolean {
  return task.state === TaskState.Failed && task.task_id !== null && isStuckReason(task.reason);
}
