import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LEASE_TTL_MS, tryLease } from "../../src/schedule/index.js";
import { type LeaseHolder, openStore, type SqliteStore } from "../../src/store/index.js";
import { advanceTo, ManualClock } from "../helpers/clock.js";
import { tempDir } from "../helpers/manifest.js";

const holder = (n: number): LeaseHolder => ({ id: `host:${n}:x`, host: "elsewhere", pid: n });
const alive = () => false;

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function open(): SqliteStore {
  const store = openStore(path.join(tempDir(), "state.db"));
  stores.push(store);
  return store;
}

describe("manifest leases", () => {
  it("lets one holder at a time run a manifest, and frees it on release", async () => {
    const store = open();
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
    const store = open();
    const clock = new ManualClock();
    const first = await tryLease(store, "daily", clock, { holder: holder(1), isGone: alive });
    await advanceTo(clock, clock.now() + 5 * LEASE_TTL_MS);
    // Renewed all along: still held.
    expect(
      "heldBy" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    // A holder that crashed (no renewals) loses it at expiry.
    store.db.prepare("UPDATE leases SET expires_at = ?").run(clock.now() - 1);
    if ("release" in first) await first.release();
    const crashedAt = clock.now();
    store.db
      .prepare("INSERT OR REPLACE INTO leases VALUES ('daily', 'gone', 'elsewhere', 9, ?, ?)")
      .run(crashedAt, crashedAt + LEASE_TTL_MS);
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
    const store = open();
    const clock = new ManualClock();
    const lost: string[] = [];
    await tryLease(store, "daily", clock, {
      holder: holder(1),
      isGone: alive,
      onLost: () => lost.push("lost"),
    });
    // The process stalls past the expiry; another takes the lease over.
    store.db.prepare("UPDATE leases SET expires_at = 0").run();
    expect(
      "release" in (await tryLease(store, "daily", clock, { holder: holder(2), isGone: alive })),
    ).toBe(true);
    await advanceTo(clock, clock.now() + LEASE_TTL_MS);
    expect(lost).toEqual(["lost"]);
  });
});
