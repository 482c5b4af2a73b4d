import { systemClock } from "../core/clock.js";
import { readNamedFile } from "../core/file-gate.js";
import { resolveFromCwd } from "../core/io.js";
import { plural } from "../core/words.js";
import { type CheckedManifest, checkManifestFile } from "../families/index.js";
import { type ScheduledManifest, Scheduler } from "../schedule/index.js";
import { executeUnderLease, recordedManifest } from "./execute-checked.js";
import type { RunFlags, RunHooks } from "./run-hooks.js";
import { openStoreAt, projectOf, type StoreAt, storeAt, storeName } from "./store.js";

/**
 * `gwrun schedule` as a function: scheduled manifests loaded, and the daemon that runs their
 * ticks until its signal aborts, every run under its manifest's lease.
 */

export type ScheduleFlags = Pick<RunFlags, "db" | "store" | "baseUrl">;

/** A valid manifest with a schedule, or what is wrong with it; `told` hears its diagnostics. */
export async function loadScheduled(
  file: string,
  told: (checked: CheckedManifest) => void = () => {},
): Promise<ScheduledManifest | string> {
  const checked = await checkManifestFile(file);
  told(checked);
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) return "invalid";
  if (settings.schedule === undefined) {
    return 'has no schedule: (add e.g. schedule: { cron: "0 6 * * *", timezone: "Europe/Berlin" })';
  }
  return { file: resolveFromCwd(file), name: settings.name, schedule: settings.schedule };
}

/** The state database of scheduled manifests: `--db`, else the first manifest's project's. */
export function scheduleStore(
  manifests: readonly ScheduledManifest[],
  flags: ScheduleFlags,
): StoreAt {
  const first = manifests[0];
  return storeAt(flags, first === undefined ? undefined : projectOf(first.file));
}

export interface ScheduleDaemon {
  manifests: readonly ScheduledManifest[];
  flags: ScheduleFlags;
  /** How a manifest's runs are told (their lines go to the daemon's log). */
  hooks(manifest: ScheduledManifest): RunHooks;
  /** One plain line for the log. */
  log(line: string): void;
  /** Aborted: no more ticks; a run under way stops and resumes at the next start. */
  signal: AbortSignal;
}

/** Runs every manifest's ticks until the signal aborts; one database holds them all. */
export async function runSchedules(options: ScheduleDaemon): Promise<void> {
  const { manifests, log, signal } = options;
  const at = scheduleStore(manifests, options.flags);
  const store = await openStoreAt(at);
  const flags: RunFlags = { db: at.location, baseUrl: options.flags.baseUrl, quiet: true };
  const scheduler = new Scheduler({
    store,
    clock: systemClock,
    async load(file) {
      const loaded = await loadScheduled(file);
      if (typeof loaded === "string") throw new Error(loaded);
      return loaded;
    },
    run:
      (manifest) =>
      async ({ tick, resume }) => {
        const hooks = options.hooks(manifest);
        const { file } = manifest;
        const done = await executeUnderLease(
          resume === undefined
            ? { file, text: await readNamedFile(file), runId: undefined }
            : await recordedManifest(store, resume),
          flags,
          hooks,
          tick,
        );
        return { exitCode: done.exit, runId: done.runId };
      },
    log,
  });
  const stop = () => scheduler.stop();
  signal.addEventListener("abort", stop, { once: true });
  log(
    `gwrun schedule: ${plural(manifests.length, "manifest")}, state in ${storeName(at.location)}`,
  );
  try {
    if (!signal.aborted) await scheduler.run(manifests);
    log("gwrun schedule: stopped");
  } finally {
    signal.removeEventListener("abort", stop);
    await store.close();
  }
}
