import type { JudgeImage } from "../families/index.js";
import type { JudgeSpec } from "../manifest/index.js";
import type { OutputCheck, OutputRow, TaskRow } from "../store/index.js";

/** What post-processing found for one output (problems name the file and the check). */
export type OutputVerdict = OutputCheck;

/**
 * Post-processing as the engine sees it: checks and thumbnails for a task's downloaded
 * outputs, run on a queue of its own (`postprocess/` implements it). Without one, a task is
 * done once downloaded.
 */
export interface PostProcess {
  /**
   * Queues the task's outputs; resolves with one verdict each and what a failed check should
   * do. `beforeSidecars` may add to the verdicts (a judge's) before the sidecars are written.
   */
  process(
    task: TaskRow,
    outputs: readonly OutputRow[],
    beforeSidecars?: (verdicts: OutputVerdict[]) => Promise<void>,
  ): Promise<{ verdicts: OutputVerdict[]; onFail: "report" | "retry" }>;
  /** The job's judge (`checks.judge`, its own over the manifest's), if it has one. */
  judgeOf?(jobId: string): JudgeSpec | undefined;
  /** What a judge is shown of an output (its link, or its bytes; a clip's frames), at `now` (ms). */
  judgeImages?(
    output: OutputRow & { path: string },
    poster: string | null,
    judge: Pick<JudgeSpec, "endpoint">,
    now: number,
  ): Promise<JudgeImage[]>;
  /** At the end of a run: what has not started fails at once (interrupted); waits for what has. */
  drain(): Promise<void>;
}
