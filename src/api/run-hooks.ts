import type { RunResult } from "../engine/index.js";
import type { CheckedManifest } from "../families/index.js";
import type { RowsBody } from "../manifest/index.js";
import type { Reporter } from "../ui/index.js";
import type { ExitCode } from "./exit-codes.js";
import type { StoreFlags } from "./store.js";

/** What running a manifest is asked with, and how its caller hears of it (`execute.ts`). */

export interface RunFlags extends StoreFlags {
  force?: boolean;
  /** Comma-separated job ids. */
  only?: string;
  baseUrl?: string;
  json?: boolean;
  /** Only failures and the summary. */
  quiet?: boolean;
  /** Run as of this time (ISO 8601): a scheduled manifest runs the tick due then. */
  at?: string;
  /** On a PostgreSQL store: record the run and its work, and leave it to the fleet's workers. */
  detach?: boolean;
}

/** How the caller of a run hears of it; the command line prints, the API collects. */
export interface RunHooks {
  /** The manifest as checked, before anything runs: its diagnostics are shown from it. */
  checked(checked: CheckedManifest): void;
  /** A line for the person: a warning, why nothing ran, a lease's news (prefixed `gwrun: `). */
  say(line: string): void;
  /** The run's reporter; `stop` is a graceful stop, `db` the store to name in hints. */
  reporter(stop: () => void, db: string | undefined): Promise<Reporter>;
  /**
   * The run is under way: `stop` ends it gracefully, `notice` tells the person. Returns the
   * stop a reporter's `q` does, and what to undo when the run ends.
   */
  underway(stop: () => void, notice: (message: string) => void): Underway;
  /** The environment manifests read (`${NAME}`, GW_API_KEY). */
  env: NodeJS.ProcessEnv;
}

export interface Underway {
  interrupt(): void;
  dispose(): void;
}

export interface ExecuteOptions {
  /** When the run is asked for, ms (default now): picks a scheduled manifest's tick. */
  at?: number;
  /** The bodies of `rows:` URLs the run being continued recorded (default none: fetched). */
  rows?: readonly RowsBody[];
}

export interface Executed {
  exit: ExitCode;
  /** The run it made or continued; undefined when none started (an invalid manifest). */
  runId: number | undefined;
  /** How the run ended; undefined when none ran here (invalid, refused, or detached). */
  result?: RunResult;
  /** Recorded and left to the fleet's workers (`--detach`). */
  detached?: boolean;
}
