import type { JobRow, OutputRow, Store } from "../store/index.js";
import type { Emit } from "./events.js";

/** What post-processing found for one output. */
export interface OutputVerdict {
  index: number;
  ok: boolean;
  /** Why it failed, each naming the file and the check, e.g. "hero.png is 1024x1024, expected 1792x1024 for size 16:9". */
  problems: string[];
  thumbnail: string | null;
  poster: string | null;
  /** What was measured (format, pixels, duration, streams), kept with the output. */
  details: Record<string, unknown>;
}

/**
 * Post-processing as the engine sees it: checks and thumbnails for a job's downloaded outputs,
 * run on a queue of its own. The engine runs without it when none is given (tests, benchmarks).
 */
export interface PostProcess {
  /** Queues the job's outputs; resolves with one verdict each and what a failed check should do. */
  process(
    row: JobRow,
    outputs: readonly OutputRow[],
  ): Promise<{ verdicts: OutputVerdict[]; onFail: "report" | "retry" }>;
  /** At the end of a run: what has not started fails at once (interrupted); waits for what has. */
  drain(): Promise<void>;
}

/**
 * Records each verdict with its output and announces it; returns the reason the job fails, or
 * undefined when every check passed.
 */
export function recordVerdicts(
  store: Store,
  row: JobRow,
  verdicts: readonly OutputVerdict[],
  emit: Emit,
): string | undefined {
  store.transaction(() => {
    for (const verdict of verdicts)
      store.markOutput(row.key, verdict.index, {
        check_state: verdict.ok ? "ok" : "failed",
        checks: JSON.stringify({ problems: verdict.problems, ...verdict.details }),
        thumbnail: verdict.thumbnail,
        poster: verdict.poster,
      });
  });
  for (const verdict of verdicts)
    emit({
      type: "output:checked",
      key: row.key,
      label: row.label,
      index: verdict.index,
      ok: verdict.ok,
      problems: verdict.problems,
      thumbnail: verdict.thumbnail,
    });
  const problems = verdicts.flatMap((verdict) => verdict.problems);
  return problems.length === 0 ? undefined : `check failed: ${problems.join("; ")}`;
}
