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

/** A bar of `width` cells, `fraction` (0–1) of them full. */
export function bar(fraction: number, width: number): string {
  const cells = Math.max(0, width);
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * cells);
  return "█".repeat(full) + "░".repeat(cells - full);
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
  const parts = [
    `${s.done}/${view.total} done, ${s.failed} failed`,
    `queued ${s.queued}`,
    `submitting ${s.submitting}`,
    `running ${s.running} (avg ${Math.round(view.runningAverage)}%)`,
    `downloading ${s.downloading}`,
  ];
  if (s.postprocessing > 0) parts.push(`post-processing ${s.postprocessing}`);
  parts.push(`${Math.round(view.tasksPerMinute)}/min`);
  parts.push(`spent ${formatSpend(view.spent, view.maxCost)}`);
  parts.push(`ETA ${formatDuration(view.etaMs)}`);
  return parts.join(" · ");
}
