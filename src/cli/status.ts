import {
  ExitCode,
  findRun,
  latestRuns,
  type RunStatus,
  statusOf,
  storeAt,
  withExistingStore,
} from "../api/index.js";
import { moneyText } from "../core/money.js";
import { terminalJson, terminalText } from "../core/text-filter.js";
import { displayWidth, padEndToWidth } from "../core/text-width.js";
import { plural } from "../core/words.js";
import { estimateWords, formatDuration, formatSpend } from "../ui/index.js";
import { isNarrow, out, outFitted, stdoutColumns } from "./output.js";
import { fleetLines } from "./status-fleet.js";
import { textLines } from "./status-texts.js";

/** `gwrun status [run]`: tasks by state and by job, spend, failures with their reasons. */
export function showStatus(
  ref: string | undefined,
  flags: { db?: string; store?: string; json?: boolean },
): Promise<ExitCode> {
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const now = Date.now();
    const status = await statusOf(store, await findRun(store, at.location, ref), now);
    // Everything, never shortened: this is what scripts read.
    if (flags.json === true) out(terminalJson(status, 2));
    else {
      const columns = stdoutColumns();
      for (const line of statusLines(status, now, isNarrow(columns)))
        outFitted(terminalText(line), columns);
    }
    return ExitCode.Ok;
  });
}

/**
 * The status as text. Answers, refusals, tool calls, notes and reasons are others' words: the
 * caller makes them safe for the terminal.
 */
function statusLines(status: RunStatus, now: number, narrow: boolean): string[] {
  const { run, jobs, expiring, failures, fleet } = status;
  const upTo = status.expected_exact ? "" : "up to ";
  const lines = [`run ${run.id}: ${run.name} — ${runTimes(run, now)}`];
  if (run.stop_reason !== null) lines.push(`  stopped: ${run.stop_reason}`);
  lines.push(
    `  ${plural(jobs.length, "job")}, ${upTo}${plural(status.expected_tasks, "task")}: ${countsText(status.states, status.awaiting_upstream, upTo)}; ${formatSpend({ paid: status.spent, spent: status.spent_in_all, maxCost: null })}${estimated(status)}`,
  );
  const width = Math.max(...jobs.map((job) => displayWidth(job.id)), 0) + 2;
  for (const job of jobs) {
    const counts = countsText(job.states, job.awaiting_upstream ?? 0, upTo);
    // Narrow: the job and its family on a line, its counts under them.
    if (narrow) lines.push(`  ${job.id} · ${job.family}`, `    ${counts}`);
    else lines.push(`  ${padEndToWidth(job.id, width)}${padEndToWidth(job.family, 14)} ${counts}`);
  }
  if (expiring.length > 0) {
    lines.push(
      `  warning: ${expiring.length} finished result(s) not downloaded yet, links expiring soon: run \`gwrun resume ${run.id}\``,
    );
    for (const item of expiring.slice(0, 10))
      lines.push(`    ${item.label}: expires ${new Date(item.expiresAt).toISOString()}`);
  }
  if (failures.length > 0) {
    lines.push("  failures:");
    for (const failure of failures.slice(0, 50))
      lines.push(`    ${failure.label} ${failure.state}: ${failure.reason}`);
    if (failures.length > 50)
      lines.push(`    … and ${failures.length - 50} more (gwrun status --json has them all)`);
  }
  lines.push(...textLines(status.texts), ...reviewLines(status.reviews));
  if (fleet !== undefined) lines.push(...fleetLines(fleet));
  lines.push(`  outputs: ${run.output_dir}`);
  return lines;
}

/** The reviews in brief: counts, and each rejected output with its note. */
function reviewLines(
  reviews: readonly { label: string; output: number; decision: string; note: string | null }[],
): string[] {
  if (reviews.length === 0) return [];
  const rejected = reviews.filter((review) => review.decision === "rejected");
  const lines = [
    `  reviews: ${reviews.length - rejected.length} approved, ${rejected.length} rejected${rejected.length > 0 ? " (new takes: gwrun retry --rejected)" : ""}`,
  ];
  for (const review of rejected.slice(0, 20))
    lines.push(
      `    ${review.label} output ${review.output + 1}${review.note === null ? "" : `: ${review.note}`}`,
    );
  if (rejected.length > 20) lines.push(`    … and ${rejected.length - 20} more`);
  return lines;
}

/** "3 done, 1 failed, 2 awaiting upstream", or "none". */
function countsText(states: Record<string, number>, awaiting = 0, upTo = ""): string {
  const counts = Object.entries(states).map(([state, n]) => `${n} ${state}`);
  if (awaiting > 0) counts.push(`${upTo}${awaiting} awaiting upstream`);
  return counts.join(", ") || "none";
}

/** How a run stands in time: its status, start, how long it took (or has run), its tick. */
function runTimes(run: RunStatus["run"], now: number): string {
  const took =
    run.finished_at === null
      ? `running for ${formatDuration(now - run.started_at)}`
      : `took ${formatDuration(run.finished_at - run.started_at)}`;
  const exit = run.exit_code === null ? "" : ` (exit ${run.exit_code})`;
  const tick = run.tick_label === null ? "" : `, tick ${run.tick_label}`;
  return `${run.status}${exit}, started ${new Date(run.started_at).toISOString()}, ${took}${tick}`;
}

/** `gwrun runs`: the latest runs, newest first, with when each started, how long it took, its tick. */
export function listRuns(flags: {
  db?: string;
  store?: string;
  json?: boolean;
}): Promise<ExitCode> {
  return withExistingStore(storeAt(flags), async (store) => {
    const runs = await latestRuns(store, 50);
    if (flags.json === true) {
      out(JSON.stringify(runs, null, 2));
      return ExitCode.Ok;
    }
    if (runs.length === 0) {
      out("no runs yet");
      return ExitCode.Ok;
    }
    const now = Date.now();
    const rows = runs.map((run) => [
      String(run.id),
      run.name,
      run.status,
      new Date(run.started_at).toISOString(),
      run.finished_at === null
        ? `${formatDuration(now - run.started_at)}…`
        : formatDuration(run.finished_at - run.started_at),
      moneyText(run.spent),
      run.tick_label ?? "–",
      run.manifest_path,
    ]);
    const header = ["run", "name", "status", "started", "took", "paid", "tick", "manifest"];
    for (const line of alignedColumns([header, ...rows])) out(terminalText(line));
    return ExitCode.Ok;
  });
}

/**
 * Rows as columns two spaces apart, each as wide as its widest cell; the first (a number)
 * right-aligned, the last left unpadded.
 */
function alignedColumns(rows: readonly string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => displayWidth(row[column] ?? ""))),
  );
  return rows.map((row) =>
    row
      .map((cell, column) =>
        column === 0
          ? cell.padStart(widths[0] ?? 0)
          : column === row.length - 1
            ? cell
            : padEndToWidth(cell, widths[column] ?? 0),
      )
      .join("  "),
  );
}

/** `, estimated 2.42 (paid 0.40 less)`: the estimate in the words the run's summary uses. */
function estimated(status: RunStatus): string {
  const words = estimateWords(status.spent, status.estimated);
  return words === "" ? "" : `, ${words}`;
}
