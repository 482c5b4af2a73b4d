import type { Command } from "commander";
import {
  DEFAULT_SETTLE_MS,
  ExitCode,
  loadWatched,
  runWatch,
  type WatchFlags as StoreAndGateway,
} from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { parseDuration } from "../manifest/index.js";
import { err, printDiagnostics } from "./output.js";
import { logWriter, namedLogHooks } from "./schedule.js";
import { withStoreOptions } from "./store-options.js";

export interface WatchFlags extends StoreAndGateway {
  /** How long a file must stay the same before it is taken (e.g. 2s). */
  settle?: string;
  /** Append plain lines to this file instead of stderr. */
  log?: string;
}

/** The least settle time taken: below it, a copy's pauses between writes look like its end. */
const MIN_SETTLE_MS = 100;

/**
 * `gwrun watch <manifest>`: runs the new tasks of files as they land in the folders its
 * `rows: { files }` search, one run per batch, until SIGTERM or Ctrl-C.
 */
export async function watch(file: string, flags: WatchFlags): Promise<ExitCode> {
  const settleMs = settleOf(flags.settle);
  const watched = await loadWatched(file, (checked) =>
    printDiagnostics(checked.diagnostics, checked.shownText),
  );
  if (typeof watched === "string") {
    err(`${file}: ${watched}; nothing is watched`);
    return ExitCode.Invalid;
  }
  const log = logWriter(flags.log);
  const stopping = new AbortController();
  const stop = () => {
    if (!stopping.signal.aborted)
      log(
        "gwrun watch: stopping: no new batch (a run under way stops, and gwrun resume continues it)",
      );
    stopping.abort();
  };
  // Listening before the first line: a signal sent when the watch says it started stops it.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    return await runWatch({
      watched,
      flags: { db: flags.db, store: flags.store, baseUrl: flags.baseUrl },
      settleMs,
      hooks: namedLogHooks(watched.name, log),
      log,
      signal: stopping.signal,
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function settleOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SETTLE_MS;
  const ms = parseDuration(value);
  if (ms === undefined || ms < MIN_SETTLE_MS)
    throw new GwError(
      ErrorCode.Usage,
      `--settle takes a duration of at least ${MIN_SETTLE_MS}ms (e.g. 2s), got "${value}"`,
    );
  return ms;
}

/** `gwrun watch`, on the program. */
export function addWatchCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("watch")
      .description(
        "run a manifest's new tasks each time files its rows: { files } match land or change, one run per batch, until SIGTERM or Ctrl-C",
      )
      .argument("<manifest>", "manifest with a rows: { files: GLOB } job")
      .option(
        "--settle <duration>",
        "a file is taken once it has not changed for this long and reads whole (default: 2s)",
      )
      .option("--log <file>", "append plain lines to this file instead of stderr"),
  )
    .option("--base-url <url>", 'gateway base URL, overriding the manifest ("sim": the simulator)')
    .action(async (manifest: string, flags: WatchFlags) => {
      setExit(await watch(manifest, flags));
    });
}
