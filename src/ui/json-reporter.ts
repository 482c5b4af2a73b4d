import { eventLine } from "./event-schema.js";
import type { Reporter } from "./reporter.js";

/**
 * `--json`: every event as one versioned NDJSON line (see event-schema.ts) on stdout. Lines
 * are gathered and written every `FLUSH_MS` at most: a pipe write is a system call, and a busy
 * run emits thousands of events a second.
 */
/** How long an event line may wait for others to share its write, ms. */
const FLUSH_MS = 20;

export function jsonReporter(options: {
  write: (text: string) => void;
  now: () => number;
  /** Where notices go, so stdout stays pure NDJSON. */
  notice: (line: string) => void;
}): Reporter {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    options.write(text);
  };
  return {
    emit: (event) => {
      if (pending.length === 0) setTimeout(flush, FLUSH_MS);
      pending.push(`${eventLine(event, options.now())}\n`);
    },
    notice: (message) => {
      flush();
      options.notice(`gwrun: ${message}`);
    },
    close: async () => flush(),
  };
}
