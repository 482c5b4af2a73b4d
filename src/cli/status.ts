import { terminalJson, terminalText } from "../core/terminal-text.js";
import { displayWidth, padEndToWidth } from "../core/text-width.js";
import { plural } from "../core/words.js";
import { awaitingTotal, awaitingUpstream, recordedRules } from "../plan/index.js";
import { FAILED_STATES, type RunRow } from "../store/index.js";
import { formatDuration, formatSpend } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import { isNarrow, out, outFitted, stdoutColumns } from "./output.js";
import { fleetLines, fleetStatus } from "./status-fleet.js";
import { textLines, textSummaries } from "./status-texts.js";
import { findRun, storeAt, withExistingStore } from "./store.js";

/** Links closer than this to expiry are warned about. */
const SOON_MS = 6 * 3_600_000;

/** One manifest job id of a run: its family and its tasks by state. */
interface JobStatus {
  id: string;
  family: string;
  tasks: number;
  states: Record<string, number>;
  /** Tasks its upstreams are still to make (not in `tasks`); left out when none. */
  awaiting_upstream?: number;
}

/** `gwrun status [run]`: tasks by state and by job, spend, failures with their reasons. */
export function showStatus(
  ref: string | undefined,
  flags: { db?: string; json?: boolean },
): Promise<ExitCode> {
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const run = await findRun(store, at.location, ref);
    const tasks = await store.tasksOf(run.id);
    const byState: Record<string, number> = {};
    const byJob = new Map<string, JobStatus>();
    const failures: { label: string; state: string; reason: string }[] = [];
    const expiring: { label: string; expiresAt: number }[] = [];
    const now = Date.now();
    for (const task of tasks) {
      byState[task.state] = (byState[task.state] ?? 0) + 1;
      const job = byJob.get(task.job_id) ?? {
        id: task.job_id,
        family: task.family ?? "passthrough",
        tasks: 0,
        states: {},
      };
      byJob.set(task.job_id, job);
      job.tasks += 1;
      job.states[task.state] = (job.states[task.state] ?? 0) + 1;
      if (FAILED_STATES.includes(task.state)) {
        failures.push({
          label: task.label,
          state: task.state,
          reason: task.reason ?? "no reason recorded",
        });
      }
      if (task.state === "completed") {
        for (const output of await store.outputsOf(task.key)) {
          if (
            output.state === "pending" &&
            output.expires_at !== null &&
            output.expires_at - now < SOON_MS
          ) {
            expiring.push({ label: task.label, expiresAt: output.expires_at });
          }
        }
      }
    }
    // What this run paid itself; what its tasks cost in all, whichever run paid.
    const { paid, spent } = await store.summaryOf({ run: run.id });
    // The dependants still to come, as the run counts them: the totals are the plan's.
    const awaiting = awaitingUpstream(tasks, recordedRules(run.dependant_rules));
    for (const [id, { tasks: n, family }] of awaiting) {
      const job = byJob.get(id) ?? { id, family: family ?? "passthrough", tasks: 0, states: {} };
      byJob.set(id, { ...job, awaiting_upstream: n });
    }
    const toCome = awaitingTotal(awaiting);
    const upTo = toCome.exact ? "" : "up to ";
    const texts = await textSummaries(store, run.id);
    const labels = new Map(tasks.map((task) => [task.key, task.label]));
    const reviews = (await store.reviewsOf({ run: run.id })).map((review) => ({
      label: labels.get(review.job_key) ?? review.job_key,
      output: review.idx,
      decision: review.decision,
      note: review.note,
    }));
    const jobs = [...byJob.values()];
    const fleet = await fleetStatus(store, run);
    if (flags.json === true) {
      // Everything, never shortened: this is what scripts read.
      out(
        terminalJson(
          {
            run: {
              id: run.id,
              name: run.name,
              status: run.status,
              exit_code: run.exit_code,
              started_at: run.started_at,
              finished_at: run.finished_at,
              output_dir: run.output_dir,
              tick: run.tick,
              stop_reason: run.stop_reason,
            },
            tasks: tasks.length,
            states: byState,
            awaiting_upstream: toCome.tasks,
            expected_tasks: tasks.length + toCome.tasks,
            expected_exact: toCome.exact,
            jobs,
            spent: paid,
            spent_in_all: spent,
            failures,
            expiring,
            texts,
            reviews,
            ...(fleet === undefined ? {} : { fleet }),
          },
          2,
        ),
      );
      return ExitCode.Ok;
    }
    // Answers, refusals, tool calls, notes and reasons are others' words: none drives the terminal.
    const columns = stdoutColumns();
    const say = (line: string) => outFitted(terminalText(line), columns);
    say(`run ${run.id}: ${run.name} — ${runTimes(run, now)}`);
    if (run.stop_reason !== null) say(`  stopped: ${run.stop_reason}`);
    say(
      `  ${plural(jobs.length, "job")}, ${upTo}${plural(tasks.length + toCome.tasks, "task")}: ${countsText(byState, toCome.tasks, upTo)}; ${formatSpend({ paid, spent, maxCost: null })}`,
    );
    const width = Math.max(...jobs.map((job) => displayWidth(job.id)), 0) + 2;
    for (const job of jobs) {
      const counts = countsText(job.states, job.awaiting_upstream ?? 0, upTo);
      // Narrow: the job and its family on a line, its counts under them.
      if (isNarrow(columns)) say(`  ${job.id} · ${job.family}`);
      say(
        isNarrow(columns)
          ? `    ${counts}`
          : `  ${padEndToWidth(job.id, width)}${padEndToWidth(job.family, 14)} ${counts}`,
      );
    }
    if (expiring.length > 0) {
      say(
        `  warning: ${expiring.length} finished result(s) not downloaded yet, links expiring soon: run \`gwrun resume ${run.id}\``,
      );
      for (const item of expiring.slice(0, 10))
        say(`    ${item.label}: expires ${new Date(item.expiresAt).toISOString()}`);
    }
    if (failures.length > 0) {
      say("  failures:");
      for (const failure of failures.slice(0, 50))
        say(`    ${failure.label} ${failure.state}: ${failure.reason}`);
      if (failures.length > 50)
        say(`    … and ${failures.length - 50} more (gwrun status --json has them all)`);
    }
    for (const line of textLines(texts)) say(line);
    for (const line of reviewLines(reviews)) say(line);
    if (fleet !== undefined) for (const line of fleetLines(fleet)) say(line);
    say(`  outputs: ${run.output_dir}`);
    return ExitCode.Ok;
  });
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
function runTimes(run: RunRow, now: number): string {
  const took =
    run.finished_at === null
      ? `running for ${formatDuration(now - run.started_at)}`
      : `took ${formatDuration(run.finished_at - run.started_at)}`;
  const exit = run.exit_code === null ? "" : ` (exit ${run.exit_code})`;
  const tick = run.tick === null ? "" : `, tick ${new Date(run.tick).toISOString()}`;
  return `${run.status}${exit}, started ${new Date(run.started_at).toISOString()}, ${took}${tick}`;
}

/** `gwrun runs`: the latest runs, newest first, with when each started, how long it took, its tick. */
export function listRuns(flags: { db?: string; json?: boolean }): Promise<ExitCode> {
  return withExistingStore(storeAt(flags), async (store) => {
    const runs = await store.runs(50);
    // What each run paid itself: added up, the runs' spend is what was paid.
    const paid = new Map<number, number>();
    for (const run of runs) paid.set(run.id, (await store.summaryOf({ run: run.id })).paid);
    if (flags.json === true) {
      out(
        JSON.stringify(
          runs.map(({ manifest_text: _text, ...run }) => ({ ...run, spent: paid.get(run.id) })),
          null,
          2,
        ),
      );
      return ExitCode.Ok;
    }
    if (runs.length === 0) {
      out("no runs yet");
      return ExitCode.Ok;
    }
    const now = Date.now();
    const name = Math.max(...runs.map((run) => run.name.length), 4) + 2;
    out(
      `${"run".padStart(4)}  ${"name".padEnd(name)}${"status".padEnd(12)}${"started".padEnd(26)}${"took".padEnd(9)}${"paid".padEnd(8)}${"tick".padEnd(26)}manifest`,
    );
    for (const run of runs) {
      const took =
        run.finished_at === null
          ? `${formatDuration(now - run.started_at)}…`
          : formatDuration(run.finished_at - run.started_at);
      const tick = run.tick === null ? "–" : new Date(run.tick).toISOString();
      out(
        `${String(run.id).padStart(4)}  ${run.name.padEnd(name)}${run.status.padEnd(12)}${new Date(run.started_at).toISOString().padEnd(26)}${took.padEnd(9)}${String(paid.get(run.id) ?? 0).padEnd(8)}${tick.padEnd(26)}${run.manifest_path}`,
      );
    }
    return ExitCode.Ok;
  });
}
