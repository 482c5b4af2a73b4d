import { type CheckedManifest, checkManifestText } from "../families/index.js";
import type { RowsBody } from "../manifest/index.js";
import { recordedRows, recordedRowsLines } from "../run/index.js";
import type { RunRow, Store } from "../store/index.js";
import { driveRun } from "./drive-run.js";
import { ExitCode } from "./exit-codes.js";
import { HeldManifest } from "./held-manifest.js";
import { openManifestRun, recordRun } from "./open-manifest-run.js";
import type { Executed, RunFlags, RunHooks } from "./run-hooks.js";

/** Nothing ran: the manifest is invalid. */
const INVALID: Executed = { exit: ExitCode.Invalid, runId: undefined };

/**
 * A manifest checked for a run as of `at`, its diagnostics told; undefined (and said) when it
 * is invalid. Held as a run keeps it: its tasks are made again, page by page, when recorded.
 * `rows`: the bodies of `rows:` URLs a continued run recorded, read instead of fetched.
 */
export async function checkForRun(
  file: string,
  text: string,
  hooks: RunHooks,
  at: number,
  rows?: readonly RowsBody[],
): Promise<CheckedManifest | undefined> {
  const checked = await checkManifestText(text, file, hooks.env, at, { hold: "templates", rows });
  hooks.checked(checked);
  for (const line of recordedRowsLines(checked.source)) hooks.say(line);
  if (checked.valid && checked.expanded.settings !== undefined) return checked;
  hooks.say(`${file}: invalid; nothing was submitted`);
  return undefined;
}

/** A checked manifest run: opened, recorded, driven and ended; everything opened released. */
export async function executeChecked(
  file: string,
  checked: CheckedManifest,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const opened = await openManifestRun(file, new HeldManifest(checked, flags.only), flags, hooks);
  if ("exit" in opened) return opened;
  try {
    const id = await recordRun(opened, runId);
    return await driveRun(opened, id, flags, hooks);
  } finally {
    await opened.session.release();
  }
}

/**
 * A scheduled manifest's tick, run by whoever holds its lease and records the tick (the
 * scheduler, or a one-shot run): checked as of the tick, then run.
 */
export async function executeUnderLease(
  manifest: ManifestToRun,
  flags: RunFlags,
  hooks: RunHooks,
  at: number,
): Promise<Executed> {
  const { file, text, runId } = manifest;
  const checked = await checkForRun(file, text, hooks, at, manifest.rows);
  if (checked === undefined) return INVALID;
  return executeChecked(file, checked, runId, flags, hooks);
}

/** A manifest's text to run: a new run of a file, or a recorded run continued. */
export interface ManifestToRun {
  file: string;
  text: string;
  /** The run to continue; undefined for a new one. */
  runId: number | undefined;
  /** The bodies of `rows:` URLs the run to continue recorded. */
  rows?: readonly RowsBody[];
}

/** A recorded run, to continue from the manifest snapshot and `rows:` bodies stored with it. */
export async function recordedManifest(store: Store, run: RunRow): Promise<ManifestToRun> {
  const rows = await recordedRows(store, run.id);
  return { file: run.manifest_path, text: run.manifest_text, runId: run.id, rows };
}

export { INVALID };
