import path from "node:path";
import { systemClock } from "../core/clock.js";
import { type FileGate, readNamedFile } from "../core/file-gate.js";
import { resolveFromCwd, shownFromCwd } from "../core/io.js";
import { moneyText } from "../core/money.js";
import { isRecord } from "../core/values.js";
import { plural } from "../core/words.js";
import { STATUS_BY_END } from "../engine/index.js";
import { type CheckedManifest, checkManifestFile } from "../families/index.js";
import { fileGlobsOf } from "../manifest/index.js";
import type { Store } from "../store/index.js";
import {
  type Batch,
  type BatchOutcome,
  FolderWatch,
  notWholeYet,
  type WatchedManifest,
  watchedFolders,
} from "../watch/index.js";
import { checkForRun, executeChecked } from "./execute-checked.js";
import { ExitCode } from "./exit-codes.js";
import { planAgainst } from "./plan.js";
import type { Executed, RunFlags, RunHooks } from "./run-hooks.js";
import { openStoreAt, projectOf, storeAt, storeName } from "./store.js";

/**
 * `gwrun watch` as a function: a manifest with `rows: { files }` loaded, and the watch that
 * runs its new tasks as files land, each batch a run started as a scheduled tick's is
 * (`checkForRun`, then `executeChecked`) under the manifest's lease, until its signal aborts.
 */

export type WatchFlags = Pick<RunFlags, "db" | "store" | "baseUrl">;

/** How long a file must stay the same before it is taken, by default, ms. */
export const DEFAULT_SETTLE_MS = 2000;

/** A manifest to watch. */
export interface Watched extends WatchedManifest {
  /** Absolute. */
  file: string;
  /** The gate its files are read through. */
  gate: FileGate;
}

/** A valid manifest with `rows: { files }`, or what is wrong with it; `told` hears its diagnostics. */
export async function loadWatched(
  file: string,
  told: (checked: CheckedManifest) => void = () => {},
): Promise<Watched | string> {
  const checked = await checkManifestFile(file);
  // An empty folder is where a watch starts: no file matching yet is no problem here.
  const diagnostics = checked.diagnostics.filter((diagnostic) => diagnostic.rule !== "no-files");
  told({ ...checked, diagnostics });
  const settings = checked.expanded.settings;
  if (settings === undefined || diagnostics.some((d) => d.severity === "error")) return "invalid";
  if (settings.schedule !== undefined)
    return "has a schedule: it runs at its ticks (gwrun schedule); watch runs a manifest without one";
  const globs = fileGlobsIn(checked.source.value);
  if (globs.length === 0)
    return 'has no job with rows: { files: GLOB }: watch runs the tasks of files as they land in a folder (give a job e.g. rows: { files: "in/*.jpg" })';
  const { source } = checked;
  return {
    file: resolveFromCwd(file),
    name: settings.name,
    dir: source.dir,
    globs,
    gate: source.gate,
  };
}

/** The globs of every job's `rows: { files }`, once each. */
function fileGlobsIn(value: unknown): string[] {
  const jobs = isRecord(value) && Array.isArray(value.jobs) ? value.jobs : [];
  const globs = jobs.flatMap((job) => fileGlobsOf(isRecord(job) ? job.rows : undefined) ?? []);
  return [...new Set(globs)];
}

export interface WatchDaemon {
  watched: Watched;
  flags: WatchFlags;
  /** How long a file must stay the same before it is taken, ms. */
  settleMs: number;
  /** How a batch's run is told (its lines go to the watch's log). */
  hooks: RunHooks;
  /** One plain line for the log. */
  log(line: string): void;
  /** Aborted: no more batches; a run under way stops as `gwrun run` does, and can be resumed. */
  signal: AbortSignal;
}

/** Watches until the signal aborts: exit 130 when a run was under way, else 0. */
export async function runWatch(options: WatchDaemon): Promise<ExitCode> {
  const { watched, log, signal } = options;
  const at = storeAt(options.flags, projectOf(watched.file));
  const store = await openStoreAt(at);
  const watch = new FolderWatch({
    manifest: watched,
    store,
    clock: systemClock,
    settleMs: options.settleMs,
    notWhole: (file) => notWholeYet(watched.gate, watched.dir, file),
    log,
    runBatch: (batch) => runBatch(options, store, batch),
  });
  const stop = () => watch.stop();
  signal.addEventListener("abort", stop, { once: true });
  const folders = watchedFolders(watched.dir, watched.globs).map(
    ({ folder }) => `${shownFromCwd(folder)}${path.sep}`,
  );
  log(
    `gwrun watch: ${watched.name} (${shownFromCwd(watched.file)}): ${watched.globs.join(", ")} in ${folders.join(", ")}; settle ${options.settleMs / 1000} s; state in ${storeName(at.location)}`,
  );
  try {
    const { interrupted } = signal.aborted ? { interrupted: false } : await watch.run();
    log("gwrun watch: stopped");
    return interrupted ? ExitCode.Interrupted : ExitCode.Ok;
  } finally {
    signal.removeEventListener("abort", stop);
    await store.close();
  }
}

/**
 * One batch, its manifest's lease held: the manifest read and checked as a tick's run is, the
 * files it listed still as the batch took them, then run when the plan has work (new tasks,
 * or tasks in flight that an interrupted batch left); a run with nothing to do is not made.
 */
async function runBatch(options: WatchDaemon, store: Store, batch: Batch): Promise<BatchOutcome> {
  const { watched, log } = options;
  const { file, name } = watched;
  const hooks = stoppedEarly(options.hooks, batch.signal);
  const checked = await checkForRun(file, await readNamedFile(file), hooks, Date.now());
  if (checked === undefined) return "failed";
  if (!batch.unchanged()) {
    log(`${name}: a file changed while the manifest was read; the batch waits until it settles`);
    return "changed";
  }
  // The files with work to do: what the batch takes of those that arrived.
  const working = new Set<string>();
  const plan = await planAgainst(file, checked, store, {
    onTask: (task) => {
      const row = task.vars?.row;
      if (task.status !== "new" && task.status !== "in_flight") return;
      if (isRecord(row) && typeof row.file === "string") working.add(row.file);
    },
  });
  const { status } = plan.totals;
  if (status.new + status.in_flight === 0) {
    log(`${name}: ${filesText(batch.files)} settled; nothing new to run (gwrun plan shows why)`);
    return "nothing-new";
  }
  if (batch.signal.aborted) return "stopped";
  const flags: RunFlags = { ...options.flags, quiet: true };
  const done = await executeChecked(file, checked, undefined, flags, hooks);
  const taken = working.size > 0 ? [...working].sort() : batch.files;
  log(batchLine(name, taken, status.new, done));
  return { exit: done.exit };
}

/**
 * The hooks of a batch's run; a stop the watch heard before the run listened for signals
 * itself stops the run as soon as it does.
 */
function stoppedEarly(hooks: RunHooks, signal: AbortSignal): RunHooks {
  return {
    ...hooks,
    underway(stop, notice) {
      const underway = hooks.underway(stop, notice);
      if (signal.aborted) underway.interrupt();
      return underway;
    },
  };
}

/** "2 files (in/a.png, in/b.png)", the first few named. */
function filesText(files: readonly string[]): string {
  const named = files.slice(0, 3).join(", ");
  const more = files.length > 3 ? ` and ${files.length - 3} more` : "";
  return `${plural(files.length, "file")} (${named}${more})`;
}

/**
 * The batch's line: the files it took, its new tasks, its run with the tasks done and failed
 * (those of earlier batches it carries included), what it paid and its exit code.
 */
function batchLine(
  name: string,
  files: readonly string[],
  newTasks: number,
  done: Executed,
): string {
  const took = `${name}: took ${filesText(files)}, ${plural(newTasks, "new task")}`;
  if (done.runId === undefined) return `${took}: no run (exit ${done.exit})`;
  if (done.result === undefined) return `${took}: run ${done.runId}, exit ${done.exit}`;
  const { counts, paid, end } = done.result;
  const tasks = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const failed = (counts.failed ?? 0) + (counts.expired ?? 0) + (counts.rejected ?? 0);
  return `${took}: run ${done.runId} ${STATUS_BY_END[end]} (${plural(tasks, "task")}: ${counts.done ?? 0} done, ${failed} failed); paid ${moneyText(paid)}; exit ${done.exit}`;
}
