import type { EngineEvent } from "../engine/index.js";
import { err } from "./output.js";

/**
 * Plain lines on stderr for a run without a dashboard: one per failure, a progress line at
 * most every `intervalMs`, notices of rate limiting and stopping. `--json` prints every event
 * as one NDJSON line on stdout instead.
 */
export function plainReporter(options: {
  intervalMs: number;
  now: () => number;
}): (event: EngineEvent) => void {
  let total = 0;
  let done = 0;
  let failed = 0;
  let submitted = 0;
  let lastLine = 0;
  let lastRateNotice = 0;
  let started = false;
  const progress = (force = false) => {
    const now = options.now();
    if (!started) return;
    if (!force && now - lastLine < options.intervalMs) return;
    lastLine = now;
    err(`gwrun: ${done}/${total} done, ${failed} failed, ${submitted} submitted`);
  };
  return (event) => {
    switch (event.type) {
      case "run:started":
        started = true;
        total = event.jobs;
        done = event.alreadyDone;
        err(`gwrun: run ${event.runId}: ${event.jobs} jobs, ${event.alreadyDone} already done`);
        break;
      case "job:added":
        total += 1;
        break;
      case "task:submitted":
        submitted += 1;
        progress();
        break;
      case "job:done":
        done += 1;
        progress();
        break;
      case "job:failed":
        failed += 1;
        err(`gwrun: ${event.label} ${event.state}: ${event.reason}`);
        break;
      case "gateway:rate-limited":
        if (options.now() - lastRateNotice > options.intervalMs) {
          lastRateNotice = options.now();
          err(
            `gwrun: the gateway is rate limiting; submitting at ${event.ratePerSecond.toFixed(2)}/s`,
          );
        }
        break;
      case "run:stopping":
        err(`gwrun: ${event.message}`);
        break;
      case "run:finished":
        progress(true);
        break;
      default:
        break;
    }
  };
}

/** Every event as one JSON line on stdout. */
export function jsonReporter(write: (line: string) => void): (event: EngineEvent) => void {
  return (event) => write(JSON.stringify(event));
}
