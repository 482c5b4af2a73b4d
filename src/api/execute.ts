import { checkManifestText } from "../families/index.js";
import { driveRun } from "./drive-run.js";
import { ExitCode } from "./exit-codes.js";
import { HeldManifest } from "./held-manifest.js";
import { openManifestRun, recordRun } from "./open-manifest-run.js";
import type { Executed, ExecuteOptions, RunFlags, RunHooks } from "./run-hooks.js";
import { runTickOnce } from "./tick-once.js";

/**
 * Running a manifest, shared by `run`, `resume`, `retry` and `schedule`, and by the API: check
 * it, take a scheduled manifest's lease and record its tick, then open, record, drive and end
 * its run. What the caller hears goes through its `RunHooks`.
 */

export type {
  Executed,
  ExecuteOptions,
  RunFlags,
  RunHooks,
  Underway,
} from "./run-hooks.js";

/**
 * Checks a manifest and runs it. A scheduled manifest runs under its lease as one tick (the
 * latest due at `at`), recorded, unless the caller already holds the lease.
 */
export async function executeManifest(
  file: string,
  text: string,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
  options: ExecuteOptions = {},
): Promise<Executed> {
  // Held as a run keeps it: its tasks are made again, page by page, when they are recorded.
  const checked = await checkManifestText(text, file, hooks.env, options.at ?? Date.now(), {
    hold: "templates",
  });
  hooks.checked(checked);
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) {
    hooks.say(`${file}: invalid; nothing was submitted`);
    return { exit: ExitCode.Invalid, runId: undefined };
  }
  const { schedule } = settings;
  const tick = checked.expanded.moment.tick;
  if (schedule === undefined || tick === undefined || options.underLease === true) {
    return executeChecked(file, new HeldManifest(checked, flags.only), runId, flags, hooks);
  }
  return runTickOnce(
    file,
    checked,
    runId,
    flags,
    hooks,
    { name: settings.name, schedule, tick },
    {
      checked: (file, checked, runId, flags, hooks) =>
        executeChecked(file, new HeldManifest(checked, flags.only), runId, flags, hooks),
      manifest: executeManifest,
    },
  );
}

/** A checked manifest run: opened, recorded, driven and ended; everything opened released. */
async function executeChecked(
  file: string,
  manifest: HeldManifest,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const opened = await openManifestRun(file, manifest, flags, hooks);
  if ("exit" in opened) return opened;
  try {
    const id = await recordRun(opened, runId);
    return await driveRun(opened, id, flags, hooks);
  } finally {
    await opened.session.release();
  }
}
