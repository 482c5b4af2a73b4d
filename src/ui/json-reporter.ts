import { eventLine } from "./event-schema.js";
import type { Reporter } from "./reporter.js";

/** `--json`: every event as one versioned NDJSON line (see event-schema.ts) on stdout. */
export function jsonReporter(options: {
  write: (line: string) => void;
  now: () => number;
  /** Where notices go, so stdout stays pure NDJSON. */
  notice: (line: string) => void;
}): Reporter {
  return {
    emit: (event) => options.write(eventLine(event, options.now())),
    notice: (message) => options.notice(`gwrun: ${message}`),
    close: async () => undefined,
  };
}
