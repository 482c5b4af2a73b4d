import path from "node:path";
import { plural } from "../core/words.js";
import { nextStep, STATUS_BY_END } from "../engine/index.js";
import { estimateWords } from "./estimate-words.js";
import type { RunView } from "./run-view.js";

/** A duration for people: "42s", "3m 05s", "2h 10m"; "–" when unknown. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "–";
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * What a run paid, then what its tasks cost in all where earlier runs paid some, then the
 * budget: "paid 3.4 of 25", "paid 0 this run (2.2 in all of 25)".
 */
export function formatSpend(view: Pick<RunView, "paid" | "spent" | "maxCost">): string {
  const money = (n: number) => String(Math.round(n * 100) / 100);
  const budget = view.maxCost === null ? "" : ` of ${money(view.maxCost)}`;
  if (money(view.paid) === money(view.spent)) return `paid ${money(view.paid)}${budget}`;
  return `paid ${money(view.paid)} this run (${money(view.spent)} in all${budget})`;
}

/** What the run paid, and beside it what that was estimated at (`estimateWords`). */
function spendWithEstimate(view: RunView): string {
  const estimated = estimateWords(view.paid, view.estimate);
  return estimated === "" ? formatSpend(view) : `${formatSpend(view)}, ${estimated}`;
}

/** Finished tasks by how they ended; `failed` leaves out the skipped. */
export interface Ended {
  done: number;
  failed: number;
  skipped: number;
}

/** How the tasks of a run or job ended, from counts whose `failed` includes the skipped. */
export function endedOf(counts: Ended): Ended {
  return { done: counts.done, failed: counts.failed - counts.skipped, skipped: counts.skipped };
}

/**
 * How the `width` cells of a bar of `total` tasks split among those done, failed and skipped,
 * and those left. It is full only once every task has ended, and failures and skips get a
 * cell at least: a run with failures never draws as all done.
 */
export function barCells(ended: Ended, total: number, width: number): Ended & { left: number } {
  const cells = Math.max(0, width);
  const count = ended.done + ended.failed + ended.skipped;
  const share = (n: number) => Math.round((n / Math.max(total, count, 1)) * cells);
  // Room for a cell of each way of failing that happened; none for the last task until it ends.
  const seen = (ended.failed > 0 ? 1 : 0) + (ended.skipped > 0 ? 1 : 0);
  const filled = Math.min(Math.max(share(count), seen), count < total ? cells - 1 : cells);
  const atLeastOne = (n: number, room: number) =>
    n > 0 ? Math.min(Math.max(share(n), 1), Math.max(room, 0)) : 0;
  const failed = atLeastOne(ended.failed, filled);
  const skipped = atLeastOne(ended.skipped, filled - failed);
  return { done: filled - failed - skipped, failed, skipped, left: cells - filled };
}

/** The tasks shown as running: those waiting for their first poll apart, with the time to it. */
function runningParts(view: RunView): string[] {
  const running = `running ${view.stages.running} (avg ${Math.round(view.runningAverage)}%)`;
  if (view.waiting === 0) return [running];
  // Rounded up: "in 0s" would be a poll that is late.
  const poll = formatDuration(Math.ceil((view.firstPollMs ?? 0) / 1000) * 1000);
  return [`waiting ${view.waiting} (first poll in ${poll})`, running];
}

/** One stage's count on screen; `tone` names the colour of a count that is not all well. */
export interface StagePart {
  text: string;
  tone?: "failed" | "skipped";
}

/** The stages in a run's order, as the dashboard shows them. */
export function stageParts(view: RunView): StagePart[] {
  const s = view.stages;
  const failed = s.failed - view.skipped;
  const parts: StagePart[] = [
    { text: `queued ${s.queued}` },
    { text: `submitting ${s.submitting}` },
    ...runningParts(view).map((text) => ({ text })),
    { text: `downloading ${s.downloading}` },
    { text: `post-processing ${s.postprocessing}` },
    { text: `done ${s.done}` },
    { text: `failed ${failed}`, tone: failed > 0 ? "failed" : undefined },
  ];
  if (view.skipped > 0) parts.push({ text: `skipped ${view.skipped}`, tone: "skipped" });
  return parts;
}

/** What a run against the built-in simulator is, said wherever the run is shown. */
export const SIMULATOR_NOTE = "against the built-in simulator: stand-in outputs, no real money";

/** The start of every plain line: it names the simulator when the run talks to it. */
export function linePrefix(simulator: boolean): string {
  return simulator ? "gwrun (simulator): " : "gwrun: ";
}

export interface SummaryOptions {
  /** Whether the gallery was written (a run that never started has none). */
  galleryExists: boolean;
  /**
   * The store when the next command must name it (`--db FILE`, or `--store` with a connection
   * string shown without its password); else undefined.
   */
  db?: string;
}

/**
 * The final summary: how the run ended, after how long, the counts, spend and output folder
 * on the first line; the failure reasons; what to do next; the gallery when one was written.
 */
export function summaryLines(view: RunView, options: SummaryOptions): string[] {
  const counts = view.counts;
  const end = view.end ?? "interrupted";
  // A run stopped early has dependants still to come: counted as `gwrun status` counts them.
  const tasks = Object.values(counts).reduce((sum, n) => sum + n, 0) + view.awaiting;
  const others = Object.entries(counts)
    .filter(([state]) => state !== "done")
    .map(([state, n]) => `${n} ${state}`);
  if (view.awaiting > 0) others.push(`${view.awaiting} awaiting upstream`);
  const lines = [
    `run ${view.runId ?? "?"} ${STATUS_BY_END[end]} after ${formatDuration(view.elapsedMs)}: ${plural(tasks, "task")}, ${counts.done ?? 0} done${others.length > 0 ? `, ${others.join(", ")}` : ""}; ${spendWithEstimate(view)}; outputs in ${view.outputDir ?? "."}`,
  ];
  if (view.simulator) lines[0] += `; ${SIMULATOR_NOTE}`;
  for (const { reason, count } of view.reasons) lines.push(`  ${count} × ${reason}`);
  if (view.delivered > 0)
    lines.push(
      `  ${plural(view.delivered, "output")} made before into another folder delivered into ${view.outputDir ?? "."} (linked or copied; not paid again)`,
    );
  const { done: published, failed: unpublished } = view.published;
  if (published + unpublished > 0)
    lines.push(
      `  outputs of ${plural(published, "task")} published to object storage${unpublished > 0 ? `; ${unpublished} not yet (tried again as the run ends)` : ""}`,
    );
  const { pass, fail, undecided, retakes } = view.judged;
  if (pass + fail + undecided > 0)
    lines.push(
      `  judge: ${plural(pass + fail + undecided, "output")} judged: ${pass} passed, ${fail} rejected, ${undecided} undecided; ${plural(retakes, "new take")} made of rejected ones`,
    );
  const { download, redo } = view.missing;
  if (download + redo > 0)
    lines.push(
      `  ${plural(download + redo, "output")} of earlier runs missing on disk: ${download} fetched again, ${redo} made again`,
    );
  const next = nextStep({
    runId: view.runId,
    end,
    counts,
    failedLabels: view.failures.map((failure) => failure.label),
    db: options.db,
    reason: view.stopReason ?? undefined,
  });
  if (next !== undefined) lines.push(`next: ${next}`);
  if (options.galleryExists && view.gallery !== null)
    lines.push(
      `gallery: ${view.gallery}; results: ${path.join(path.dirname(view.gallery), "results.jsonl")}`,
    );
  return lines;
}

/** One line of progress: "120/400 tasks done, 3 failed · running 70 (avg 43%) · …". */
export function progressLine(view: RunView): string {
  const s = view.stages;
  const skipped = view.skipped > 0 ? `, ${view.skipped} skipped` : "";
  const parts = [
    `${s.done}/${view.total} tasks done, ${s.failed - view.skipped} failed${skipped}`,
    `queued ${s.queued}`,
    `submitting ${s.submitting}`,
    ...runningParts(view),
    `downloading ${s.downloading}`,
  ];
  if (s.postprocessing > 0) parts.push(`post-processing ${s.postprocessing}`);
  parts.push(`${Math.round(view.tasksPerMinute)}/min`);
  parts.push(formatSpend(view));
  parts.push(`ETA ${formatDuration(view.etaMs)}`);
  return parts.join(" · ");
}
