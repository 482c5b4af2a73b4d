import { existsSync } from "node:fs";
import { isBelow } from "../core/safe-files.js";
import { writeReport } from "../postprocess/index.js";
import type { RunRow, Store } from "../store/index.js";

/**
 * The static record of an output folder (index.html, results.jsonl) rewritten after decisions
 * made in the viewer, so that it never counts fewer approvals than `gwrun status`. Rewrites run
 * one at a time in the background; decisions made meanwhile are in the next one.
 */
export interface GalleryRefresher {
  /** An output of task `key` was decided: its folder's record is rewritten soon. */
  reviewed(key: string): void;
  /** Resolves when no rewrite is left to do (before the store closes). */
  settle(): Promise<void>;
}

/** How many of the latest runs are searched for the one that last wrote a folder. */
const RUNS_SEARCHED = 1000;

export function galleryRefresher(
  store: Store,
  /** Told when a folder's record could not be rewritten (it is stale until `gwrun report`). */
  onProblem: (message: string) => void,
): GalleryRefresher {
  const keys = new Set<string>();
  let running: Promise<void> | undefined;

  /**
   * The folders holding the outputs of the tasks decided — where each output was downloaded,
   * the task's run's, and every folder a copy was delivered into — each with the run whose
   * name its header shows.
   */
  async function foldersOf(decided: Iterable<string>): Promise<Map<string, RunRow>> {
    const folders = new Map<string, RunRow>();
    const runs = await store.runs(RUNS_SEARCHED);
    for (const key of decided) {
      const task = await store.task(key);
      const own = task === undefined ? undefined : await store.run(task.run_id);
      if (own === undefined) continue;
      const downloaded = (await store.outputsOf(key)).flatMap((output) =>
        runs.filter((run) => output.path !== null && isBelow(run.output_dir, output.path)),
      );
      const dirs = [
        own.output_dir,
        ...downloaded.map((run) => run.output_dir),
        ...(await store.copiesOf(key)).map((copy) => copy.output_dir),
      ];
      for (const dir of dirs) {
        if (folders.has(dir)) continue;
        // The folder's header names its latest run, as `gwrun report` writes it.
        const latest = runs.find((run) => run.output_dir === dir);
        if (latest !== undefined || dir === own.output_dir) folders.set(dir, latest ?? own);
      }
    }
    return folders;
  }

  async function rewrite(): Promise<void> {
    while (keys.size > 0) {
      const decided = [...keys];
      keys.clear();
      for (const [dir, run] of await foldersOf(decided)) {
        // A folder recorded elsewhere (not on this machine) is not made here, and is told.
        if (!existsSync(dir)) {
          onProblem(
            `${dir} is not on this machine: its index.html and results.jsonl were not rewritten after a review (gwrun report ${run.id} rebuilds them where the folder is)`,
          );
          continue;
        }
        try {
          await writeReport(store, run, "folder");
        } catch (error) {
          onProblem(
            `${dir}/index.html was not rewritten after a review (${(error as Error).message}): gwrun report rebuilds it`,
          );
        }
      }
    }
  }

  function start(): void {
    running ??= rewrite()
      .catch((error: unknown) =>
        onProblem(`the galleries were not rewritten after a review (${(error as Error).message})`),
      )
      .finally(() => {
        running = undefined;
        // A decision made as the last rewrite ended.
        if (keys.size > 0) start();
      });
  }

  return {
    reviewed(key) {
      keys.add(key);
      start();
    },
    settle: async () => {
      while (running !== undefined) await running;
    },
  };
}
