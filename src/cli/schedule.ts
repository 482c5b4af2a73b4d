import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import {
  ExitCode,
  executeManifest,
  openStoreAt,
  projectOf,
  type RunFlags,
  type StoreAt,
  storeAt,
  storeName,
  withStore,
} from "../api/index.js";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { readNamedFile } from "../core/file-gate.js";
import { plural } from "../core/words.js";
import { checkManifestFile } from "../families/index.js";
import { nextTicks, tickLabel } from "../manifest/index.js";
import { describeHolder, type ScheduledManifest, Scheduler } from "../schedule/index.js";
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
    const loaded = await loadScheduled(file);
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

/** A valid manifest with a schedule, or what is wrong with it (diagnostics printed unless quiet). */
async function loadScheduled(file: string, quiet = false): Promise<ScheduledManifest | string> {
  const checked = await checkManifestFile(file);
  if (!quiet) printDiagnostics(checked.diagnostics, checked.shownText);
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) return "invalid";
  if (settings.schedule === undefined) {
    return 'has no schedule: (add e.g. schedule: { cron: "0 6 * * *", timezone: "Europe/Berlin" })';
  }
  return { file: path.resolve(file), name: settings.name, schedule: settings.schedule };
}

async function runDaemon(
  manifests: readonly ScheduledManifest[],
  flags: ScheduleFlags,
): Promise<ExitCode> {
  const log = logWriter(flags.log);
  // One database holds the ticks, leases and runs of every manifest scheduled here.
  const at = scheduleDb(manifests, flags);
  const store = await openStoreAt(at);
  const runFlags: RunFlags = { db: at.location, baseUrl: flags.baseUrl, quiet: true };
  const scheduler = new Scheduler({
    store,
    clock: systemClock,
    async load(file) {
      const loaded = await loadScheduled(file, true);
      if (typeof loaded === "string") throw new Error(loaded);
      return loaded;
    },
    run:
      (manifest) =>
      async ({ tick, resume }) => {
        // "gwrun: " gives way to the manifest's name; the simulator's mark stays.
        const prefix = (line: string) =>
          log(
            `${manifest.name}: ${line.replace(/^gwrun(?: (\(simulator\)))?: /, (_, sim) => (sim === undefined ? "" : `${sim} `))}`,
          );
        const done =
          resume === undefined
            ? await executeManifest(
                manifest.file,
                await readNamedFile(manifest.file),
                undefined,
                runFlags,
                logHooks(prefix),
                { at: tick, underLease: true },
              )
            : await executeManifest(
                resume.manifest_path,
                resume.manifest_text,
                resume.id,
                runFlags,
                logHooks(prefix),
                { at: tick, underLease: true },
              );
        return { exitCode: done.exit, runId: done.runId };
      },
    log,
  });
  const stop = () => {
    log("stopping: no more ticks (a run under way stops and resumes at the next start)");
    scheduler.stop();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  log(
    `gwrun schedule: ${plural(manifests.length, "manifest")}, state in ${storeName(at.location)}`,
  );
  try {
    await scheduler.run(manifests);
    log("gwrun schedule: stopped");
    return ExitCode.Ok;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await store.close();
  }
}

/** The state database of scheduled manifests: `--db`, else the first manifest's project's. */
function scheduleDb(manifests: readonly ScheduledManifest[], flags: ScheduleFlags): StoreAt {
  const first = manifests[0];
  return storeAt(flags, first === undefined ? undefined : projectOf(first.file));
}

/** Lines with the time in front, appended to `file` (made if missing), else to stderr. */
function logWriter(file: string | undefined): (line: string) => void {
  if (file !== undefined) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return (line) => {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    if (file === undefined) process.stderr.write(stamped);
    else appendFileSync(file, stamped);
  };
}

function listSchedules(
  manifests: readonly ScheduledManifest[],
  flags: ScheduleFlags,
): Promise<ExitCode> {
  return withStore(scheduleDb(manifests, flags), async (store) => {
    const now = Date.now();
    if (flags.json === true) {
      const listed = [];
      for (const { name, file, schedule: when } of manifests) {
        const lease = await store.leaseOf(name);
        listed.push({
          name,
          file,
          schedule: when,
          running: lease !== undefined && lease.expires_at > now ? lease : null,
          next: nextTicks(when, now, LIST_NEXT).map((tick) => ({
            tick: new Date(tick).toISOString(),
            label: tickLabel(tick, when),
          })),
          last: (await store.ticksOf(name, LIST_LAST)).map((row) => ({
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
      out(`${name} (${path.relative(process.cwd(), file) || file})`);
      out(
        `  "${when.cron}" in ${when.timezone}; overlap ${when.overlap}, catch_up ${when.catchUp}, keeps ${keep}`,
      );
      const lease = await store.leaseOf(name);
      if (lease !== undefined && lease.expires_at > now) {
        out(`  running now: ${describeHolder(lease, now)}`);
      }
      out("  next ticks:");
      for (const tick of nextTicks(when, now, LIST_NEXT)) {
        out(`    ${tickLabel(tick, when)}  ${new Date(tick).toISOString()}`);
      }
      const last = await store.ticksOf(name, LIST_LAST);
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
