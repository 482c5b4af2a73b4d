import type { Command } from "commander";
import { ExitCode, isPostgres, openRecordAt, storeAt, storeName } from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { terminalText } from "../core/text-filter.js";
import {
  isFleetStore,
  startWorkerProcess,
  WORKER_CONCURRENCY,
  WORKER_DOWNLOADS,
} from "../fleet/index.js";
import { parseDuration } from "../manifest/index.js";
import { err } from "./output.js";
import { storeOption } from "./store-options.js";

export interface WorkerFlags {
  store?: string;
  name?: string;
  concurrency?: string;
  downloads?: string;
  run?: string;
  /** How long a silent worker counts as alive (e.g. 90s). */
  lease?: string;
}

/**
 * `gwrun worker`: works every run of a PostgreSQL store (or one, `--run`) until SIGTERM or
 * Ctrl-C, which stop its claims, let the submits under way record their task ids, and give
 * back its poll lead and jobs.
 */
export async function runWorker(flags: WorkerFlags): Promise<ExitCode> {
  const at = storeAt({ store: flags.store });
  const { location } = at;
  if (!isPostgres(location))
    throw new GwError(ErrorCode.Usage, "gwrun worker works a PostgreSQL store", {
      hint: "name it with --store postgres://… (or GWRUN_STORE)",
    });
  // Paths as recorded: each run is worked in its own project (`runProject`).
  const store = await openRecordAt(location);
  if (!isFleetStore(store)) throw new Error("not a PostgreSQL store");
  try {
    const name = flags.name ?? `worker-${process.pid}`;
    // A line may carry a gateway's words: none drives the terminal.
    const log = (line: string) => err(terminalText(`gwrun worker ${name}: ${line}`));
    const worker = await startWorkerProcess({
      store,
      project: at.project,
      name,
      concurrency: count(flags.concurrency, "--concurrency", WORKER_CONCURRENCY),
      downloads: count(flags.downloads, "--downloads", WORKER_DOWNLOADS),
      onlyRun: flags.run === undefined ? undefined : count(flags.run, "--run", 0),
      leaseMs: flags.lease === undefined ? undefined : leaseOf(flags.lease),
      log,
    });
    const stop = () => {
      err(`gwrun worker ${name}: stopping: no new claims; submits under way are recorded`);
      void worker.stop();
    };
    // Listening before it says so: a signal sent at the word stops it cleanly.
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    err(
      `gwrun worker ${name} (${worker.id}) works ${storeName(location)}; SIGTERM or Ctrl-C stops it`,
    );
    try {
      await worker.stopped();
    } finally {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    }
    return ExitCode.Ok;
  } finally {
    await store.close();
  }
}

function count(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new GwError(
      ErrorCode.Usage,
      `${flag} takes a whole number of at least 1, got "${value}"`,
    );
  return n;
}

function leaseOf(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000)
    throw new GwError(
      ErrorCode.Usage,
      `--lease takes a duration of at least 1s (e.g. 90s), got "${value}"`,
    );
  return ms;
}

/** `gwrun worker`, on the program. */
export function addWorkerCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("worker")
    .description(
      "work the runs of a PostgreSQL store with the rest of the fleet, until SIGTERM or Ctrl-C",
    )
    .addOption(storeOption(true))
    .option("--name <name>", "how status names this worker (default: worker-<pid>)")
    .option("--concurrency <n>", "submit jobs at once (default: 8)")
    .option("--downloads <n>", "download jobs (with checks and thumbnails) at once (default: 4)")
    .option("--run <id>", "work only this run")
    .option(
      "--lease <duration>",
      "after this long without a heartbeat a worker counts as dead and its claims are resolved; give every worker the same (default: 90s)",
    )
    .action(async (flags: WorkerFlags) => {
      setExit(await runWorker(flags));
    });
}
