import { ErrorCode, GwError } from "../core/errors.js";
import { type Store, type TaskRow, TaskState } from "../store/index.js";

/**
 * `--only`: the jobs a run is limited to, and the upstream tasks that feed a chosen `from:`
 * job whose upstream is not chosen — its current takes in the output folder, done earlier.
 */

interface Job {
  job: { spec: { id: string; from?: string } };
}

/** The jobs named by `--only` (comma-separated ids), or all of them. */
export function selectJobs<T extends Job>(jobs: readonly T[], only: string | undefined): T[] {
  if (only === undefined) return [...jobs];
  const wanted = only
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  const known = new Set(jobs.map((job) => job.job.spec.id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new GwError(
      ErrorCode.Usage,
      `--only: no job ${unknown.map((id) => `"${id}"`).join(", ")} in the manifest`,
      { hint: `jobs: ${[...known].join(", ")}` },
    );
  }
  return jobs.filter((job) => wanted.includes(job.job.spec.id));
}

/**
 * The done tasks whose outputs feed the chosen `from:` jobs whose upstream is left out. An
 * upstream with none is an error naming it: the chosen job would have nothing to start from.
 */
export async function feedsOf(
  store: Pick<Store, "currentTasksOf">,
  outputDir: string,
  chosen: readonly Job[],
): Promise<TaskRow[]> {
  const ids = new Set(chosen.map((job) => job.job.spec.id));
  const feeds: TaskRow[] = [];
  for (const { job } of chosen) {
    const upstream = job.spec.from;
    if (upstream === undefined || ids.has(upstream)) continue;
    const done = (await store.currentTasksOf(outputDir, upstream)).filter(
      (task) => task.state === TaskState.Done,
    );
    if (done.length === 0) {
      throw new GwError(
        ErrorCode.Usage,
        `--only ${job.spec.id}: its upstream job "${upstream}" has no outputs in ${outputDir} yet, so ${job.spec.id} has nothing to start from`,
        { hint: `run both: --only ${upstream},${job.spec.id} (or run without --only)` },
      );
    }
    // Two chosen jobs may follow the same upstream: feed it once.
    ids.add(upstream);
    feeds.push(...done);
  }
  return feeds;
}
