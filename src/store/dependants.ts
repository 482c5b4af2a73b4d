import { statement } from "./statements.js";
import type { Store } from "./store.js";

/**
 * Dependant bookkeeping: the stand-ins recorded for the dependants of a failed upstream, and
 * the request of a dependant that has not been sent yet.
 */

/**
 * Forgets the stand-ins of an upstream whose real outputs now exist (it was retried); only
 * those not moved on. Returns how many went.
 */
export function dropPlaceholders(store: Store, upstreamKey: string): number {
  const below = statement(
    store,
    "SELECT key FROM jobs WHERE upstream_key = ? AND placeholder = 1 AND state IN ('pending', 'skipped')",
  );
  const unlink = statement(store, "DELETE FROM run_jobs WHERE key = ?");
  const remove = statement(store, "DELETE FROM jobs WHERE key = ?");
  return store.transaction(() => {
    let dropped = 0;
    // Stand-ins stand in for stand-ins further down a chain: they go too.
    const queue = [upstreamKey];
    for (let upstream = queue.pop(); upstream !== undefined; upstream = queue.pop()) {
      for (const { key } of below.all(upstream) as { key: string }[]) {
        queue.push(key);
        unlink.run(key);
        remove.run(key);
        dropped += 1;
      }
    }
    return dropped;
  });
}

/**
 * Replaces the request of a dependant still pending (a link bound earlier may have expired
 * since); false when it has been sent, or is a stand-in.
 */
export function rebindPending(store: Store, key: string, request: string): boolean {
  return (
    store.db
      .prepare(
        "UPDATE jobs SET request = ? WHERE key = ? AND state = 'pending' AND placeholder = 0 AND request <> ?",
      )
      .run(request, key, request).changes === 1
  );
}
