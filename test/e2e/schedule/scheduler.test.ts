import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Schedule } from "../../../src/manifest/index.js";
import { type ScheduledManifest, Scheduler } from "../../../src/schedule/index.js";
import { openStore, type Store, type TickRow } from "../../../src/store/index.js";
import { advanceTo, ManualClock, settle } from "../../helpers/clock.js";
import { holdLeaseElsewhere, type LeaseHolderProcess } from "../../helpers/lease-holder.js";
import { tempDir } from "../../helpers/manifest.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

interface Fired {
  tick: string;
  at: string;
  resumed: boolean;
}

/**
 * A scheduler on a manual clock with a stand-in for the run: each run records when it was
 * called, lasts `runMs` of manual time, and ends as `exitFor` says (or throws).
 */
function scope(
  schedule: Partial<Schedule> & { cron: string },
  options: { start: string; runMs?: number; exitFor?: (n: number) => number | Error } = {
    start: "2026-11-20T12:00:00Z",
  },
) {
  const db = path.join(tempDir(), "state.db");
  const store = openStore(db);
  const clock = new ManualClock(at(options.start));
  const manifest: ScheduledManifest = {
    file: "/manifests/daily.yaml",
    name: "daily",
    schedule: {
      timezone: "UTC",
      overlap: "skip",
      catchUp: "latest",
      keepRuns: undefined,
      ...schedule,
    },
  };
  const fired: Fired[] = [];
  const log: string[] = [];
  const start = () => {
    const scheduler = new Scheduler({
      store,
      clock,
      load: async () => manifest,
      run:
        () =>
        async ({ tick, resume }) => {
          fired.push({ tick: iso(tick), at: iso(clock.now()), resumed: resume !== undefined });
          const n = fired.length;
          if (options.runMs !== undefined) await clock.sleep(options.runMs);
          const exit = options.exitFor?.(n) ?? 0;
          if (exit instanceof Error) throw exit;
          return { exitCode: exit, runId: undefined };
        },
      log: (line) => log.push(line),
    });
    const done = scheduler.run([manifest]);
    return { scheduler, done };
  };
  const ticks = async (): Promise<Pick<TickRow, "tick" | "status" | "trigger" | "exit_code">[]> =>
    (await store.ticksOf("daily", 100)).reverse().map(({ tick, status, trigger, exit_code }) => ({
      tick: iso(tick) as unknown as number,
      status,
      trigger,
      exit_code,
    }));
  return { db, store, clock, manifest, fired, log, start, ticks };
}

const stores: Store[] = [];
const holders: LeaseHolderProcess[] = [];
afterEach(async () => {
  for (const holder of holders.splice(0)) await holder.kill().catch(() => {});
  for (const store of stores.splice(0)) await store.close();
});

/** Stops a scheduler, letting a run under way finish in manual time. */
async function stopped(
  daemon: { scheduler: Scheduler; done: Promise<void> },
  clock?: ManualClock,
): Promise<void> {
  daemon.scheduler.stop();
  if (clock !== undefined) await advanceTo(clock, clock.now() + 2 * 3_600_000);
  await daemon.done;
}

describe("gwrun schedule", () => {
  it("fires each tick on time in its zone, across the spring daylight-saving change", async () => {
    const s = scope(
      { cron: "0 6 * * *", timezone: "Europe/Berlin" },
      { start: "2026-03-27T12:00:00Z" },
    );
    stores.push(s.store);
    const daemon = s.start();
    await settle();
    // The first start catches nothing up: yesterday's 06:00 is not run.
    expect(s.fired).toEqual([]);
    await advanceTo(s.clock, at("2026-03-30T12:00:00Z"));
    expect(s.fired.map((f) => [f.tick, f.at])).toEqual([
      ["2026-03-28T05:00:00.000Z", "2026-03-28T05:00:00.000Z"],
      ["2026-03-29T04:00:00.000Z", "2026-03-29T04:00:00.000Z"],
      ["2026-03-30T04:00:00.000Z", "2026-03-30T04:00:00.000Z"],
    ]);
    // Each wait names the next firing in the schedule's zone, and when that is in UTC.
    expect(s.log).toContain(
      "daily: next tick due at 2026-03-29T0600 Europe/Berlin (2026-03-29T04:00:00.000Z)",
    );
    expect((await s.ticks()).map((t) => [t.status, t.trigger, t.exit_code])).toEqual([
      ["finished", "on-time", 0],
      ["finished", "on-time", 0],
      ["finished", "on-time", 0],
    ]);
    await stopped(daemon);
  });

  it.each([
    ["none", [], ["missed", "missed", "missed"]],
    ["latest", ["2026-11-24T06:00:00.000Z"], ["missed", "missed", "catch-up"]],
    [
      "all",
      ["2026-11-22T06:00:00.000Z", "2026-11-23T06:00:00.000Z", "2026-11-24T06:00:00.000Z"],
      ["catch-up", "catch-up", "catch-up"],
    ],
  ] as const)("after a restart, catch_up: %s handles the ticks missed while down", async (policy, runs, kinds) => {
    const s = scope({ cron: "0 6 * * *", catchUp: policy });
    stores.push(s.store);
    const first = s.start();
    await advanceTo(s.clock, at("2026-11-21T12:00:00Z"));
    expect(s.fired.map((f) => f.tick)).toEqual(["2026-11-21T06:00:00.000Z"]);
    await stopped(first);
    // Down for three mornings.
    s.clock.advance(3 * 86_400_000);
    const second = s.start();
    await settle();
    expect(s.fired.slice(1).map((f) => f.tick)).toEqual(runs);
    expect(
      (await s.ticks()).slice(1).map((t) => (t.status === "missed" ? "missed" : t.trigger)),
    ).toEqual(kinds);
    // And the schedule goes on as before.
    await advanceTo(s.clock, at("2026-11-25T06:00:00Z"));
    expect(s.fired.at(-1)).toMatchObject({
      tick: "2026-11-25T06:00:00.000Z",
      at: "2026-11-25T06:00:00.000Z",
    });
    await stopped(second);
  });

  it("keeps going when runs fail or throw", async () => {
    const s = scope(
      { cron: "0 6 * * *" },
      {
        start: "2026-11-20T12:00:00Z",
        exitFor: (n) => (n === 1 ? new Error("database is locked") : n === 2 ? 1 : 0),
      },
    );
    stores.push(s.store);
    const daemon = s.start();
    await advanceTo(s.clock, at("2026-11-23T12:00:00Z"));
    expect((await s.ticks()).map((t) => [t.tick, t.status, t.exit_code])).toEqual([
      ["2026-11-21T06:00:00.000Z", "finished", 1],
      ["2026-11-22T06:00:00.000Z", "finished", 1],
      ["2026-11-23T06:00:00.000Z", "finished", 0],
    ]);
    expect(s.log.join("\n")).toMatch(/tick 2026-11-21T0600 could not run: database is locked/);
    await stopped(daemon);
  });

  it("skips a tick that falls while its run is going (overlap: skip)", async () => {
    const s = scope(
      { cron: "0 * * * *", overlap: "skip" },
      { start: "2026-11-20T00:30:00Z", runMs: 90 * 60_000 },
    );
    stores.push(s.store);
    const daemon = s.start();
    await advanceTo(s.clock, at("2026-11-20T05:30:00Z"));
    expect(s.fired.map((f) => f.at.slice(11, 16))).toEqual(["01:00", "03:00", "05:00"]);
    expect((await s.ticks()).map((t) => `${t.tick.toString().slice(11, 16)} ${t.status}`)).toEqual([
      "01:00 finished",
      "02:00 skipped",
      "03:00 finished",
      "04:00 skipped",
      "05:00 running",
    ]);
    await stopped(daemon, s.clock);
  });

  it("runs a tick that falls while its run is going once that run ends (overlap: wait)", async () => {
    const s = scope(
      { cron: "0 * * * *", overlap: "wait" },
      { start: "2026-11-20T00:30:00Z", runMs: 90 * 60_000 },
    );
    stores.push(s.store);
    const daemon = s.start();
    await advanceTo(s.clock, at("2026-11-20T05:00:00Z"));
    expect(s.fired.map((f) => `${f.tick.slice(11, 16)}@${f.at.slice(11, 16)}`)).toEqual([
      "01:00@01:00",
      "02:00@02:30",
      "03:00@04:00",
    ]);
    await stopped(daemon, s.clock);
  });

  it("skips a tick while another process holds the manifest's lease, and runs once it is gone (overlap: skip)", async () => {
    const s = scope({ cron: "0 6 * * *", overlap: "skip" });
    stores.push(s.store);
    const other = await holdLeaseElsewhere(s.db, "daily", s.clock.now());
    holders.push(other);
    const daemon = s.start();
    await advanceTo(s.clock, at("2026-11-21T12:00:00Z"));
    expect(s.fired).toEqual([]);
    const [skipped] = await s.ticks();
    expect(skipped).toMatchObject({ tick: "2026-11-21T06:00:00.000Z", status: "skipped" });
    const reason = (await s.store.ticksOf("daily", 1))[0]?.reason;
    expect(reason).toMatch(
      new RegExp(`another run of daily holds its lease \\(process ${other.pid} on `),
    );
    // The other process crashes without giving the lease back: it is taken over at once.
    await other.kill();
    await advanceTo(s.clock, at("2026-11-22T12:00:00Z"));
    expect(s.fired.map((f) => f.tick)).toEqual(["2026-11-22T06:00:00.000Z"]);
    await stopped(daemon);
  });

  it("waits for another process's run to end, then runs the tick (overlap: wait)", async () => {
    const s = scope({ cron: "0 6 * * *", overlap: "wait" });
    stores.push(s.store);
    const other = await holdLeaseElsewhere(s.db, "daily", s.clock.now());
    holders.push(other);
    const daemon = s.start();
    await advanceTo(s.clock, at("2026-11-21T06:10:00Z"));
    expect(s.fired).toEqual([]);
    expect(s.log.join("\n")).toMatch(/tick 2026-11-21T0600 waits: another run holds its lease/);
    await other.release();
    await advanceTo(s.clock, at("2026-11-21T06:10:05Z"));
    expect(s.fired.map((f) => [f.tick, f.at])).toEqual([
      ["2026-11-21T06:00:00.000Z", "2026-11-21T06:10:05.000Z"],
    ]);
    expect((await s.ticks()).map((t) => t.status)).toEqual(["finished"]);
    await stopped(daemon);
  });

  it("continues a tick whose run was cut short as soon as it starts again", async () => {
    const s = scope(
      { cron: "0 6 * * *" },
      { start: "2026-11-20T12:00:00Z", exitFor: (n) => (n === 1 ? 130 : 0) },
    );
    stores.push(s.store);
    const first = s.start();
    await advanceTo(s.clock, at("2026-11-21T07:00:00Z"));
    await stopped(first);
    expect((await s.ticks()).map((t) => t.status)).toEqual(["interrupted"]);
    const second = s.start();
    await settle();
    expect(s.fired.map((f) => [f.tick, f.resumed])).toEqual([
      ["2026-11-21T06:00:00.000Z", false],
      ["2026-11-21T06:00:00.000Z", false],
    ]);
    expect((await s.ticks()).map((t) => [t.status, t.trigger, t.exit_code])).toEqual([
      ["finished", "resumed", 0],
    ]);
    await stopped(second);
  });
});
