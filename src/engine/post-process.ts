import type { OutputCheck, OutputRow, TaskRow } from "../store/index.js";

/** What post-processing found for one output (problems name the file and the check). */
export type OutputVerdict = OutputCheck;

/**
 * Post-processing as the engine sees it: checks and thumbnails for a task's downloaded
 * outputs, run on a queue of its own (`postprocess/` implements it). Without one, a task is
 * done once downloaded.
 */
export interface PostProcess {
  /** Queues the task's outputs; resolves with one verdict each and what a failed check should do. */
  process(
    task: TaskRow,
    outputs: readonly OutputRow[],
  ): Promise<{ verdicts: OutputVerdict[]; onFail: "report" | "retry" }>;
  /** At the end of a run: what has not started fails at once (interrupted); waits for what has. */
  drain(): Promise<void>;
}
