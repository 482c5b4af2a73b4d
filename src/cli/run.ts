import {
  type Executed,
  type ExitCode,
  type RetryChoice,
  type RunFlags,
  type RunHooks,
  resumeRunWith,
  retryRunWith,
  runManifestWith,
} from "../api/index.js";
import { commandIo } from "../core/io.js";
import { formatDiagnostic } from "../manifest/index.js";
import { openLogReporter, openReporter } from "../ui/index.js";
import { err, out, printDiagnostics } from "./output.js";
import { onInterrupt } from "./run-signals.js";

export type { RunFlags } from "../api/index.js";
export type RetryFlags = RunFlags & RetryChoice;

/**
 * `gwrun run`, `resume` and `retry`: the API's runs, heard on the command's terminal: the
 * diagnostics with code frames, the dashboard (or plain lines, or NDJSON), Ctrl-C.
 */

/** How a run started from the command line is heard: on the terminal. */
export function terminalHooks(flags: { json?: boolean; quiet?: boolean }): RunHooks {
  return {
    checked: (checked) => printDiagnostics(checked.diagnostics, checked.shownText),
    say: err,
    reporter: (stop, db) => openReporter(flags, stop, db),
    underway: onInterrupt,
    env: commandIo().env,
  };
}

/** How a run the scheduler starts is heard: in its log, only failures and the summary. */
export function logHooks(log: (line: string) => void): RunHooks {
  return {
    checked: (checked) => {
      for (const diagnostic of checked.diagnostics)
        log(formatDiagnostic(diagnostic, undefined, false));
    },
    say: log,
    reporter: async (_stop, db) => openLogReporter(log, db),
    underway: onInterrupt,
    env: commandIo().env,
  };
}

/** The exit of a run, saying so when it was left to the fleet's workers. */
function exitOf(executed: Executed): ExitCode {
  if (executed.detached === true)
    out(
      `run ${executed.runId} recorded; the fleet's workers work it (gwrun status ${executed.runId} follows it)`,
    );
  return executed.exit;
}

/** `gwrun run <manifest>` (and bare `gwrun <manifest>`): a new run of the manifest. */
export async function runManifest(file: string, flags: RunFlags): Promise<ExitCode> {
  return exitOf(await runManifestWith(file, flags, terminalHooks(flags)));
}

/** `gwrun resume [run]`: continues a run from the manifest snapshot stored with it. */
export async function resumeRun(ref: string | undefined, flags: RunFlags): Promise<ExitCode> {
  return exitOf(await resumeRunWith(ref, flags, terminalHooks(flags)));
}

/** `gwrun retry [run] --failed|--expired|--held|--stuck|--rejected`: puts them back, resumes. */
export async function retryRun(ref: string | undefined, flags: RetryFlags): Promise<ExitCode> {
  return exitOf(await retryRunWith(ref, flags, terminalHooks(flags)));
}
