import type { EngineEvent } from "../engine/index.js";
import type { Store } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";

/** Rate limiting noted at most this often: a spell of 429s is one notice, not hundreds. */
const NOTICE_EVERY_MS = 10_000;

/** Keeps what a viewer of the run's progress should hear: rate limiting, and a stop. */
export function runNotices(store: Store, runId: number): { note(event: EngineEvent): void } {
  let lastRateLimit = Number.NEGATIVE_INFINITY;
  const keep = (type: string, message: string) => {
    // A notice is a courtesy: failing to keep one must not stop the run.
    store.recordRunNotice(runId, { at: Date.now(), type, message }).catch(() => {});
  };
  return {
    note(event) {
      if (event.type === "run:stopping") keep(event.type, event.message);
      if (event.type !== "gateway:rate-limited" || Date.now() - lastRateLimit < NOTICE_EVERY_MS)
        return;
      lastRateLimit = Date.now();
      keep(
        event.type,
        `the gateway is rate limiting; submitting at ${event.ratePerSecond.toFixed(2)}/s`,
      );
    },
  };
}

/**
 * First Ctrl-C (or SIGTERM, or `q` on the dashboard): stop gracefully. A second: exit at once —
 * the store is already consistent. `say` tells the person through the reporter.
 */
export function onInterrupt(
  stop: () => void,
  say: (message: string) => void,
): { interrupt(): void; dispose(): void } {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      say("stopping: no new submits; Ctrl-C again to exit at once");
      stop();
    } else {
      process.exit(ExitCode.Interrupted);
    }
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    interrupt: handler,
    dispose() {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
