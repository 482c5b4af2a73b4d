import { afterEach, describe, expect, it, vi } from "vitest";
import { LEASE_TTL_MS, tryLease } from "../../../src/schedule/index.js";
import type { LeaseHolder } from "../../../src/store/index.js";
import { advanceTo, ManualClock } from "../../helpers/clock.js";
import { openStoreOf, STORE_KINDS, type StoreKind, type TestStore } from "../../helpers/store.js";

const holder = (n: number): LeaseHolder => ({ id: `host:${n}:x`, host: "elsewhere", pid: n });
const alive = () => false;

const stores: TestStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function open(kind: StoreKind): Promise<TestStore> {
  const { store } = await openStoreOf(kind);
  stores.push(store);
  return store;
}

/**
 * Moves the clock on to `until` wake by wake, letting each renewal finish its round trip (a
 * real query on PostgreSQL) before the next: the holder keeps renewing all along.
 */
async function advanceRenewing(clock: ManualClock, until: number): Promise<void> {
  for (let wake = clock.nextWake; wake !== undefined && wake <= until; wake = clock.nextWake) {
    clock.advance(wake - clock.now());
    await vi.waitFor(() => {
      if (clock.nextWake === undefined) throw new Error("still renewing");
    });
  }
  clock.advance(until - clock.now());
}

describe.each(STORE_KINDS)("manifest leases (%s)", (kind) => {
  it("lets one holder at a time run a manifest, and frees it on release", async () => {
    const store = await open(kind);
    const clock = new ManualClock();
    const first = await tryLease(store, "daily", clock, { holder: holder(1), isGone: alive });
    expect("release" in first).toBe(true);
    const second = await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive });
    expect(second).toMatchObject({ heldBy: { pid: 1, host: "elsewhere" } });
    // Another manifest is not affected.
    expect(
      "release" in (await tryLease(store, "weekly", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    if ("release" in first) await first.release();
    expect(
      "release" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
  });

  it("keeps a lease while renewing it, and hands over one whose holder stopped renewing", async () => {
    const store = await open(kind);
    const clock = new ManualClock();
    const first = await tryLease(store, "daily", clock, { holder: holder(1), isGone: alive });
    await advanceRenewing(clock, clock.now() + 5 * LEASE_TTL_MS);
    // Renewed all along: still held.
    expect(
      "heldBy" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    // A holder that crashed (no renewals) loses it at expiry.
    await store.sql(`UPDATE leases SET expires_at = ${clock.now() - 1}`);
    if ("release" in first) await first.release();
    const crashedAt = clock.now();
    await store.sql(`DELETE FROM leases WHERE name = 'daily';
      INSERT INTO leases VALUES ('daily', 'gone', 'elsewhere', 9, ${crashedAt}, ${crashedAt + LEASE_TTL_MS})`);
    expect(
      "heldBy" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    clock.advance(LEASE_TTL_MS + 1);
    expect(
      "release" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    expect((await store.leaseOf("daily"))?.pid).toBe(2);
  });

  it("says so when a stalled holder finds its lease taken over", async () => {
    const store = await open(kind);
    const clock = new ManualClock();
    const lost: string[] = [];
    await tryLease(store, "daily", clock, {
      holder: holder(1),
      isGone: alive,
      onLost: () => lost.push("lost"),
    });
    // The process stalls past the expiry; another takes the lease over.
    await store.sql("UPDATE leases SET expires_at = 0");
    expect(
      "release" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    await advanceTo(clock, clock.now() + LEASE_TTL_MS);
    await vi.waitFor(() => expect(lost).toEqual(["lost"]));
  });
});
