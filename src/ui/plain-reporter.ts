import path from "node:path";
import { terminalText } from "../core/text-filter.js";
import { plural } from "../core/words.js";
import type { EngineEvent } from "../engine/index.js";
import { linePrefix, progressLine, SIMULATOR_NOTE, summaryLines } from "./format.js";
import type { Reporter } from "./reporter.js";
import { applyEvent, createRunState } from "./run-state.js";
import { viewOf } from "./run-view.js";

export interface PlainOptions {
  /** Writes one line (a newline is added). */
  write: (line: string) => void;
  now: () => number;
  cwd: string;
  /** Least time between progress lines, ms. */
  intervalMs: number;
  /** Only failures and the summary. */
  quiet: boolean;
  galleryExists: (file: string) => boolean;
  /** Put the time (ISO 8601) in front of each line; a log that stamps its own lines says no. */
  timestamps: boolean;
  /** The state database when the next command must name it. */
  db?: string;
}

/**
 * Plain lines for a run without a terminal (cron, CI, pipes): the start, a progress line when
 * something changed at most every `intervalMs` (`tick` asks; the caller's timer calls it),
 * one line per failure, notices of rate limiting and stopping, and the summary.
 */
export function plainReporter(options: PlainOptions): Reporter & { tick(): void } {
  const state = createRunState();
  // Reasons carry others' words (a gateway's, a model's): none drives the terminal.
  const write = (line: string) => options.write(terminalText(line));
  const stamp = () => (options.timestamps ? `${new Date(options.now()).toISOString()} ` : "");
  const say = (line: string) => write(`${stamp()}${linePrefix(state.simulator)}${line}`);
  let shown = 0;
  let lastLine = Number.NEGATIVE_INFINITY;
  let rateLimited = false;
  const tick = () => {
    const now = options.now();
    if (options.quiet || state.startedAt === null || state.end !== null) return;
    if (state.version === shown || now - lastLine < options.intervalMs) return;
    shown = state.version;
    lastLine = now;
    say(progressLine(viewOf(state, now, options.cwd)));
  };
  const emit = (event: EngineEvent) => {
    const now = options.now();
    applyEvent(state, event, now);
    switch (event.type) {
      case "run:started":
        if (!options.quiet)
          say(
            `run ${event.runId}: ${plural(event.jobs, "job")}, ${plural(event.tasks + event.awaiting, "task")}, ${event.alreadyDone} already done${event.simulator ? `; ${SIMULATOR_NOTE}` : ""}`,
          );
        break;
      case "task:failed":
        say(`${event.label} ${event.state}: ${event.reason}`);
        break;
      case "task:completed":
        // The gateway sent more than was asked for: worth a line even when quiet.
        if (event.surplus !== undefined)
          say(
            `${event.label}: the gateway listed ${plural(event.surplus, "more output link")} than the ${event.outputs} promised; not downloaded`,
          );
        break;
      case "gateway:rate-limited":
        // Once per spell of rate limiting, not once per 429.
        if (!rateLimited && !options.quiet)
          say(`the gateway is rate limiting; submitting at ${event.ratePerSecond.toFixed(2)}/s`);
        rateLimited = true;
        break;
      case "task:submitted":
        if (now >= state.rateLimitedUntil) rateLimited = false;
        break;
      case "run:stopping":
        say(event.message);
        break;
      case "output:missing":
        // A file gone from disk costs a download or a new task: worth a line even when quiet.
        say(
          `${event.label}: ${event.files.map((file) => path.relative(options.cwd, file) || file).join(", ")} ${event.files.length === 1 ? "is" : "are"} not on disk as recorded; ${event.action === "download" ? "its links still work: downloading again" : "its links have expired: it is made again (paid)"}`,
        );
        break;
      case "run:finished":
        if (!options.quiet) say(progressLine(viewOf(state, now, options.cwd)));
        break;
      default:
        break;
    }
  };
  return {
    emit,
    tick,
    notice: say,
    // The summary comes last, once the gallery it points at has been written.
    close: async () => {
      if (state.finishedAt === null) return;
      const view = viewOf(state, options.now(), options.cwd);
      const [first, ...rest] = summaryLines(view, {
        galleryExists: view.gallery !== null && options.galleryExists(view.gallery),
        db: options.db,
      });
      say(first ?? "");
      // Indented lines belong to the line above; the others are stamped for a log.
      for (const line of rest) write(line.startsWith(" ") ? line : `${stamp()}${line}`);
    },
  };
}
