import path from "node:path";
import { BUDGET_ADVICE, type RunEnd } from "../engine/index.js";
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

/** Spend, and the budget when there is one: "3.4 of 25". */
export function formatSpend(spent: number, maxCost: number | null): string {
  const money = (n: number) => String(Math.round(n * 100) / 100);
  return maxCost === null ? money(spent) : `${money(spent)} of ${money(maxCost)}`;
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

/** Cuts `text` to `width` characters, marking the cut with "…". */
export function truncate(text: string, width: number): string {
  if (width <= 0) return "";
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** How a run's end reads in the summary and in `gwrun runs`. */
export const STATUS_BY_END: Readonly<Record<RunEnd, string>> = {
  done: "done",
  failed: "failed",
  budget: "stopped",
  balance: "stopped",
  interrupted: "interrupted",
};

/**
 * The final summary: the counts, spend and output folder on the first line, then the failure
 * reasons, then the gallery when one was written.
 */
export function summaryLines(view: RunView, options: { galleryExists: boolean }): string[] {
  const counts = view.counts;
  const end = view.end ?? "interrupted";
  const others = Object.entries(counts)
    .filter(([state]) => state !== "done")
    .map(([state, n]) => `${n} ${state}`);
  // A budget stop says how to go on: the store keeps what is done.
  const advice = end === "budget" ? `; ${BUDGET_ADVICE}` : "";
  const lines = [
    `run ${view.runId ?? "?"} ${STATUS_BY_END[end]}: ${counts.done ?? 0} done${others.length > 0 ? `, ${others.join(", ")}` : ""}; spent ${formatSpend(view.spent, view.maxCost)}; outputs in ${view.outputDir ?? "."}${advice}`,
  ];
  for (const { reason, count } of view.reasons) lines.push(`  ${count} × ${reason}`);
  if (options.galleryExists && view.gallery !== null)
    lines.push(
      `gallery: ${view.gallery}; results: ${path.join(path.dirname(view.gallery), "results.jsonl")}`,
    );
  return lines;
}

/** One line of progress: "120/400 done, 3 failed · running 70 (avg 43%) · …". */
export function progressLine(view: RunView): string {
  const s = view.stages;
  const skipped = view.skipped > 0 ? `, ${view.skipped} skipped` : "";
  const parts = [
    `${s.done}/${view.total} done, ${s.failed - view.skipped} failed${skipped}`,
    `queued ${s.queued}`,
    `submitting ${s.submitting}`,
    ...runningParts(view),
    `downloading ${s.downloading}`,
  ];
  if (s.postprocessing > 0) parts.push(`post-processing ${s.postprocessing}`);
  parts.push(`${Math.round(view.tasksPerMinute)}/min`);
  parts.push(`spent ${formatSpend(view.spent, view.maxCost)}`);
  parts.push(`ETA ${formatDuration(view.etaMs)}`);
  return parts.join(" · ");
}
