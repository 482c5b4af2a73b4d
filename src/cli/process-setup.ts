import v8 from "node:v8";
import { hasPassword, redactUrl } from "../store/index.js";

/** What the gwrun process sets for itself before any command runs. */
export function setUpProcess(): void {
  maskPasswords();
  // A reader that stops early (`gwrun plan x.yaml | head`) is not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  // A run's live heap is small (tens of MB) and churns fast: between full collections V8 lets
  // garbage grow the heap to several times that. Growing by half at most keeps a 10,000-task
  // run near 210 MB instead of 240–290, and its full collections stay short.
  v8.setFlagsFromString("--heap-growing-percent=50");
}

/** A connection string within an argument (`--store URL` or `--store=URL`). */
const CONNECTION_STRING = /postgres(?:ql)?:\/\/\S*/gi;

/**
 * A password on the command line is refused (see `dbPath`); until the refusal, `ps` shows
 * the arguments with it masked. Setting the title rewrites the arguments other processes read.
 */
function maskPasswords(): void {
  const args = [process.argv0, ...process.execArgv, ...process.argv.slice(1)];
  if (!args.some((arg) => (arg.match(CONNECTION_STRING) ?? []).some(hasPassword))) return;
  process.title = args
    .map((arg) =>
      arg.replace(CONNECTION_STRING, (url) => (hasPassword(url) ? redactUrl(url) : url)),
    )
    .join(" ");
}
