import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Clock } from "../core/clock.js";
import { processAlive } from "../core/process.js";
import type { LeaseHolder, LeaseRow, Store } from "../store/index.js";

/**
 * The lease that keeps one manifest from running twice at once, whoever starts it: this
 * scheduler, a second one, or a system crontab's `gwrun run`, as long as they share the state
 * database. The holder renews it while its run goes on; a holder that dies loses it when it
 * expires, or at once when it lived on this machine and its process is gone.
 */

/** How long a lease lasts without renewal, ms. */
export const LEASE_TTL_MS = 60_000;
/** How often a holder renews it, ms. */
const RENEW_EVERY_MS = 20_000;

/** A lease this process holds; `release()` gives it up and stops renewing. */
export interface Lease {
  readonly name: string;
  release(): Promise<void>;
}

/** This process as a lease holder. */
export function thisProcess(): LeaseHolder {
  return {
    id: `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    host: hostname(),
    pid: process.pid,
  };
}

/** True when the lease's holder ran on this machine and its process no longer exists. */
export function holderIsGone(lease: LeaseRow): boolean {
  return lease.host === hostname() && lease.pid !== process.pid && !processAlive(lease.pid);
}

/** Takes the lease of manifest `name`, or says who holds it. */
export async function tryLease(
  store: Store,
  name: string,
  clock: Clock,
  options: {
    holder?: LeaseHolder;
    isGone?: (lease: LeaseRow) => boolean;
    /** Told when a renewal finds the lease taken over (this process stalled past its expiry). */
    onLost?: () => void;
  } = {},
): Promise<Lease | { heldBy: LeaseRow }> {
  const holder = options.holder ?? thisProcess();
  const result = await store.acquireLease(
    name,
    holder,
    clock.now(),
    LEASE_TTL_MS,
    options.isGone ?? holderIsGone,
  );
  if (!result.acquired) return { heldBy: result.lease };
  const stop = new AbortController();
  const renew = async () => {
    while (!stop.signal.aborted) {
      try {
        await clock.sleep(RENEW_EVERY_MS, stop.signal);
      } catch {
        return;
      }
      if (!(await store.renewLease(name, holder.id, clock.now(), LEASE_TTL_MS))) {
        options.onLost?.();
        return;
      }
    }
  };
  void renew();
  return {
    name,
    async release() {
      if (stop.signal.aborted) return;
      stop.abort();
      await store.releaseLease(name, holder.id);
    },
  };
}

/** Says who holds a lease, for messages. */
export function describeHolder(lease: LeaseRow, now: number): string {
  const since = Math.max(0, Math.round((now - lease.acquired_at) / 1000));
  return `process ${lease.pid} on ${lease.host}, since ${since} s ago`;
}
