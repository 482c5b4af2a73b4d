import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import {
  ExitCode,
  loadScheduled,
  type RunFlags,
  type RunHooks,
  runSchedules,
  scheduleStore,
  withStore,
} from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { commandIo, resolveFromCwd, shownFromCwd } from "../core/io.js";
import { latestTick, nextTicks, type Schedule, tickLabel } from "../manifest/index.js";
import { describeHolder, type ScheduledManifest, tickWhen } from "../schedule/index.js";
import { err, out, printDiagnostics } from "./output.js";
import { logHooks } from "./run.js";

export interface ScheduleFlags extends Pick<RunFlags, "db" | "store" | "baseUrl"> {
  /** Append plain lines to this file instead of stderr. */
  log?: string;
  list?: boolean;
  /** With --list: print it as JSON. */
  json?: boolean;
}

/** Ticks `--list` shows ahead, and records behind. */
const LIST_NEXT = 5;
const LIST_LAST = 10;

/**
 * `gwrun schedule <manifest...>`: runs every manifest's ticks until stopped (SIGINT/SIGTERM);
 * with `--list`, shows their next ticks and last runs instead.
 */
export async function schedule(files: readonly string[], flags: ScheduleFlags): Promise<ExitCode> {
  if (files.length === 0)
    throw new GwError(ErrorCode.Usage, "give at least one manifest with schedule:");
  const manifests: ScheduledManifest[] = [];
  for (const file of files) {
    const loaded = await loadScheduled(file, (checked) =>
      printDiagnostics(checked.diagnostics, checked.shownText),
    );
    if (typeof loaded === "string") {
      err(`${file}: ${loaded}; nothing was scheduled`);
      return ExitCode.Invalid;
    }
    manifests.push(loaded);
  }
  const names = manifests.map((manifest) => manifest.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) {
    throw new GwError(
      ErrorCode.Usage,
      `two manifests are named "${twice}": a schedule runs each name once`,
    );
  }
  if (flags.list === true) return listSchedules(manifests, flags);
  return runDaemon(manifests, flags);
}

async function runDaemon(
  manifests: readonly ScheduledManifest[],
  flags: ScheduleFlags,
): Promise<ExitCode> {
  const log = logWriter(flags.log);
  const stopping = new AbortController();
  const stop = () => {
    log("stopping: no more ticks (a run under way stops and resumes at the next start)");
    stopping.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    await runSchedules({
      manifests,
      flags,
      hooks: (manifest) => namedLogHooks(manifest.name, log),
      log,
      signal: stopping.signal,
    });
    return ExitCode.Ok;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** How a daemon's run of manifest `name` is heard: in its log, each line named for the manifest. */
export function namedLogHooks(name: string, log: (line: string) => void): RunHooks {
  // "gwrun: " gives way to the manifest's name; the simulator's mark stays.
  return logHooks((line) =>
    log(
      `${name}: ${line.replace(/^gwrun(?: (\(simulator\)))?: /, (_, sim) => (sim === undefined ? "" : `${sim} `))}`,
    ),
  );
}

/** Lines with the time in front, appended to `file` (made if missing), else to stderr. */
export function logWriter(file: string | undefined): (line: string) => void {
  const { stderr } = commandIo();
  const log = file === undefined ? undefined : resolveFromCwd(file);
  if (log !== undefined) mkdirSync(path.dirname(log), { recursive: true });
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    if (log === undefined) stderr.write(stamped);
    else appendFileSync(log, stamped);
  };
}

function listSchedules(
  manifests: readonly ScheduledManifest[],
  flags: ScheduleFlags,
): Promise<ExitCode> {
  return withStore(scheduleStore(manifests, flags), async (store) => {
    const now = Date.now();
    if (flags.json === true) {
      const listed = [];
      for (const { name, file, schedule: when } of manifests) {
        const lease = await store.leaseOf(name);
        const last = await store.ticksOf(name, LIST_LAST);
        const due = dueNotRun(when, now, last);
        listed.push({
          name,
          file,
          schedule: when,
          running: lease !== undefined && lease.expires_at > now ? lease : null,
          due_not_run: due === undefined ? null : namedTick(due, when),
          next: nextTicks(when, now, LIST_NEXT).map((tick) => namedTick(tick, when)),
          last: last.map((row) => ({
            ...row,
            tick: new Date(row.tick).toISOString(),
            label: tickLabel(row.tick, when),
          })),
        });
      }
      out(JSON.stringify(listed, null, 2));
      return ExitCode.Ok;
    }
    for (const { name, file, schedule: when } of manifests) {
      const keep = when.keepRuns === undefined ? "all runs" : `${when.keepRuns} runs`;
      out(`${name} (${shownFromCwd(file)})`);
      out(
        `  "${when.cron}" in ${when.timezone}; overlap ${when.overlap}, catch_up ${when.catchUp}, keeps ${keep}`,
      );
      const lease = await store.leaseOf(name);
      if (lease !== undefined && lease.expires_at > now) {
        out(`  running now: ${describeHolder(lease, now)}`);
      }
      const last = await store.ticksOf(name, LIST_LAST);
      const due = dueNotRun(when, now, last);
      if (due !== undefined)
        out(
          `  due since ${tickWhen(when, due)}, not run yet: gwrun run ${shownFromCwd(file)} runs it`,
        );
      out("  next ticks:");
      for (const tick of nextTicks(when, now, LIST_NEXT)) {
        out(`    ${tickLabel(tick, when)}  ${new Date(tick).toISOString()}`);
      }
      out(last.length === 0 ? "  no ticks recorded yet" : "  last ticks:");
      for (const row of last) {
        const what =
          row.status === "finished" || row.status === "interrupted"
            ? `${row.status}, exit ${row.exit_code}`
            : row.status === "running"
              ? "running"
              : `${row.status}: ${row.reason ?? ""}`;
        const run = row.run_id === null ? "" : `  run ${row.run_id}`;
        out(`    ${tickLabel(row.tick, when)}  ${row.trigger.padEnd(8)}  ${what}${run}`);
      }
      out();
    }
    return ExitCode.Ok;
  });
}

/** The latest tick due by `now` when nothing handled it yet (no run, skip or miss recorded). */
function dueNotRun(
  schedule: Schedule,
  now: number,
  handled: readonly { tick: number }[],
): number | undefined {
  const due = latestTick(schedule, now);
  return due === undefined || handled.some((row) => row.tick === due) ? undefined : due;
}

/** A tick in `--list --json`: its instant and its name in the schedule's zone. */
function namedTick(tick: number, schedule: Schedule): { tick: string; label: string } {
  return { tick: new Date(tick).toISOString(), label: tickLabel(tick, schedule) };
}
