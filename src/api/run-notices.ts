import type { EngineEvent } from "../engine/index.js";
import type { Store } from "../store/index.js";

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
