/** Reporters of a run: an Ink dashboard on a terminal, plain lines or NDJSON elsewhere. */

import { existsSync } from "node:fs";
import path from "node:path";
import { commandIo } from "../core/io.js";
import { jsonReporter } from "./json-reporter.js";
import { plainReporter } from "./plain-reporter.js";
import type { Reporter } from "./reporter.js";

export { estimateWords } from "./estimate-words.js";
export { EVENT_STREAM_VERSION, eventLine, eventLineSchema } from "./event-schema.js";
export { formatDuration, formatSpend, linePrefix } from "./format.js";
export type { Reporter } from "./reporter.js";

export type ReporterKind = "dashboard" | "plain" | "json";

/** Least time between plain progress lines, ms. */
const PLAIN_INTERVAL_MS = 2000;

/**
 * `--json` → NDJSON on stdout; a terminal on stderr (and not `--quiet`, not CI, not a dumb
 * terminal) → the dashboard; otherwise plain lines.
 */
export function reporterKind(
  flags: { json?: boolean; quiet?: boolean },
  env: { stderrIsTTY: boolean; ci: boolean; term: string | undefined },
): ReporterKind {
  if (flags.json === true) return "json";
  if (flags.quiet === true || !env.stderrIsTTY || env.ci || env.term === "dumb") return "plain";
  return "dashboard";
}

/** The reporter for the command's streams; `onStop` is what `q` or Ctrl-C on the dashboard does. */
export async function openReporter(
  flags: { json?: boolean; quiet?: boolean },
  onStop: () => void,
  db?: string,
): Promise<Reporter> {
  const now = () => Date.now();
  const { stdout, stderr, env, cwd } = commandIo();
  const errLine = (line: string) => stderr.write(`${line}\n`);
  const ci = env.CI !== undefined && !["", "0", "false"].includes(env.CI);
  const kind = reporterKind(flags, { stderrIsTTY: stderr.isTTY === true, ci, term: env.TERM });
  if (kind === "json")
    return jsonReporter({
      write: (text) => stdout.write(text),
      now,
      notice: errLine,
    });
  if (kind === "dashboard") {
    // React's development build checks every render; it is chosen by NODE_ENV of the process
    // (not of a command) when first loaded.
    process.env.NODE_ENV ??= "production";
    // Ink and React load only when a dashboard is drawn.
    const { dashboardReporter } = await import("./dashboard-reporter.js");
    return dashboardReporter({
      stream: stderr,
      stdin: commandIo().stdin,
      now,
      cwd,
      onStop,
      galleryExists: onDiskFrom(cwd),
      db,
    });
  }
  const plain = plainReporter({
    write: errLine,
    now,
    cwd,
    intervalMs: PLAIN_INTERVAL_MS,
    quiet: flags.quiet === true,
    galleryExists: onDiskFrom(cwd),
    timestamps: true,
    db,
  });
  const timer = setInterval(plain.tick, PLAIN_INTERVAL_MS / 4);
  return {
    ...plain,
    close: async () => {
      clearInterval(timer);
      await plain.close();
    },
  };
}

/**
 * A run's lines for a log (the scheduler's, which stamps each line): only failures and the
 * summary, no terminal.
 */
export function openLogReporter(write: (line: string) => void, db?: string): Reporter {
  const { cwd } = commandIo();
  return plainReporter({
    write,
    now: () => Date.now(),
    cwd,
    intervalMs: PLAIN_INTERVAL_MS,
    quiet: true,
    galleryExists: onDiskFrom(cwd),
    timestamps: false,
    db,
  });
}

/** Whether a file a reporter names as the person reads it (from `cwd`) is on disk. */
function onDiskFrom(cwd: string): (file: string) => boolean {
  return (file) => existsSync(path.resolve(cwd, file));
}
