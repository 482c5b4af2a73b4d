import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../../src/engine/index.js";
import { plainReporter } from "../../../src/ui/plain-reporter.js";
import { play, started, through } from "../../helpers/ui-script.js";

function reporter(quiet = false, extra: { timestamps?: boolean; db?: string } = {}) {
  const lines: string[] = [];
  let now = Date.parse("2026-11-24T09:00:00.000Z");
  const plain = plainReporter({
    write: (line) => lines.push(line),
    now: () => now,
    cwd: "/work",
    intervalMs: 2000,
    quiet,
    galleryExists: () => true,
    timestamps: extra.timestamps ?? false,
    db: extra.db,
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { plain, lines, advance };
}

const finished: EngineEvent = {
  type: "run:finished",
  estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
  end: "done",
  counts: { done: 2 },
  spent: 1,
  paid: 1,
  unknownSubmits: 0,
};

describe("plain reporter", () => {
  it("says when a result listed more outputs than promised, even when quiet", () => {
    const { plain, lines } = reporter(true);
    plain.emit(started({ a: 1 }));
    plain.emit({
      type: "task:completed",
      key: "a-1",
      job: "a",
      label: "a-1",
      cost: 0.5,
      outputs: 1,
      surplus: 499,
    });
    expect(lines).toEqual([
      "gwrun: a-1: the gateway listed 499 more output links than the 1 promised; not downloaded",
    ]);
  });

  it("prints a progress line at most every interval, and only when something changed", () => {
    const { plain, lines, advance } = reporter();
    plain.emit(started({ a: 2 }));
    plain.tick();
    for (const event of through("a", 1)) plain.emit(event);
    plain.tick();
    advance(1000);
    plain.tick();
    advance(1500);
    plain.tick();
    plain.tick();
    advance(5000);
    plain.tick();
    expect(lines.filter((line) => line.includes("· queued"))).toEqual([
      "gwrun: 0/2 tasks done, 0 failed · queued 2 · submitting 0 · running 0 (avg 0%) · downloading 0 · 0/min · paid 0 of 25 · ETA –",
      "gwrun: 1/2 tasks done, 0 failed · queued 1 · submitting 0 · running 0 (avg 0%) · downloading 0 · 24/min · paid 0.5 of 25 · ETA 3s",
    ]);
  });

  it("with --quiet prints only failures and the summary, with the gallery", async () => {
    const { plain, lines, advance } = reporter(true);
    plain.emit(started({ a: 2 }));
    plain.emit({ type: "gateway:rate-limited", retryAfterMs: 1000, ratePerSecond: 2 });
    plain.emit({
      type: "task:failed",
      key: "a-2",
      job: "a",
      label: "a-2",
      state: "rejected",
      reason: "http 422: bad size",
    });
    for (const event of through("a", 1)) plain.emit(event);
    advance(10_000);
    plain.tick();
    plain.emit({ ...finished, end: "failed", counts: { done: 1, rejected: 1 } });
    // The summary waits for the reporter to close: the gallery is written after the run.
    expect(lines).toEqual(["gwrun: a-2 rejected: http 422: bad size"]);
    await plain.close();
    expect(lines).toEqual([
      "gwrun: a-2 rejected: http 422: bad size",
      "gwrun: run 7 failed after 10s: 2 tasks, 1 done, 1 rejected; paid 1 of 25; outputs in out/spring",
      "  1 × http 422: bad size",
      "next: gwrun retry --failed 7 (a-2)",
      "gallery: out/spring/index.html; results: out/spring/results.jsonl",
    ]);
  });

  it("ends a budget stop and its summary with how to continue", async () => {
    const { plain, lines } = reporter(true);
    plain.emit(started({ a: 3 }));
    for (const event of through("a", 1)) plain.emit(event);
    const message =
      "budget reached: max_cost 25 (spent 0.5 plus tasks running); raise max_cost and run again; done work is not paid twice";
    plain.emit({ type: "run:stopping", reason: "budget", message });
    plain.emit({
      ...finished,
      end: "budget",
      counts: { done: 1, pending: 2 },
      spent: 0.5,
      paid: 0.5,
    });
    await plain.close();
    expect(lines).toEqual([
      `gwrun: ${message}`,
      "gwrun: run 7 stopped after 0s: 3 tasks, 1 done, 2 pending; paid 0.5 of 25; outputs in out/spring",
      "next: raise max_cost and run again; done work is not paid twice",
      "gallery: out/spring/index.html; results: out/spring/results.jsonl",
    ]);
  });

  it("stamps every line but the indented ones with the ISO time, and says how long the run took", async () => {
    const { plain, lines, advance } = reporter(false, { timestamps: true });
    plain.emit(started({ a: 2 }));
    advance(61_000);
    for (const event of through("a", 1)) plain.emit(event);
    plain.emit({
      type: "task:failed",
      key: "a-2",
      job: "a",
      label: "a-2",
      state: "failed",
      reason: "content filtered",
    });
    plain.emit({ ...finished, end: "failed", counts: { done: 1, failed: 1 } });
    await plain.close();
    expect(lines).toEqual([
      "2026-11-24T09:00:00.000Z gwrun: run 7: 1 job, 2 tasks, 0 already done",
      "2026-11-24T09:01:01.000Z gwrun: a-2 failed: content filtered",
      "2026-11-24T09:01:01.000Z gwrun: 1/2 tasks done, 1 failed · queued 0 · submitting 0 · running 0 (avg 0%) · downloading 0 · 1/min · paid 1 of 25 · ETA 0s",
      "2026-11-24T09:01:01.000Z gwrun: run 7 failed after 1m 01s: 2 tasks, 1 done, 1 failed; paid 1 of 25; outputs in out/spring",
      "  1 × content filtered",
      "2026-11-24T09:01:01.000Z next: gwrun retry --failed 7 (a-2)",
      "2026-11-24T09:01:01.000Z gallery: out/spring/index.html; results: out/spring/results.jsonl",
    ]);
  });

  it("every ending says what to do next, naming the database when it is not the one found here", async () => {
    const ending = async (
      end: "interrupted" | "failed" | "balance",
      counts: Record<string, number>,
      failed: string[],
    ) => {
      const { plain, lines } = reporter(true, { db: "/srv/state/my gw.db" });
      plain.emit(started({ a: 9 }));
      for (const label of failed)
        plain.emit({
          type: "task:failed",
          key: label,
          job: "a",
          label,
          state: label.startsWith("x") ? "expired" : "failed",
          reason: "r",
        });
      plain.emit({ ...finished, end, counts });
      await plain.close();
      return lines.find((line) => line.startsWith("next: "));
    };
    expect(await ending("interrupted", { done: 2, pending: 7 }, [])).toBe(
      "next: gwrun resume 7 --db '/srv/state/my gw.db'",
    );
    // Stopped for a local fault (a full disk) with nothing failed: resume once it is fixed.
    expect(await ending("failed", { done: 2, completed: 7 }, [])).toBe(
      "next: gwrun resume 7 --db '/srv/state/my gw.db'",
    );
    expect(await ending("balance", { done: 2, pending: 7 }, [])).toBe(
      "next: top up the gateway account, then gwrun resume 7 --db '/srv/state/my gw.db'",
    );
    expect(
      await ending("failed", { done: 4, failed: 3, skipped: 1, expired: 1 }, [
        "a-1",
        "a-2",
        "a-3",
        "x-4",
      ]),
    ).toBe(
      "next: gwrun retry --failed --expired 7 --db '/srv/state/my gw.db' (a-1, a-2, a-3 and 2 more)",
    );
    const { plain, lines } = reporter(true);
    plain.emit(started({ a: 1 }));
    for (const event of through("a", 1)) plain.emit(event);
    plain.emit(finished);
    await plain.close();
    expect(lines.some((line) => line.startsWith("next:"))).toBe(false);
  });

  it("a failure reason with terminal escapes reaches neither its lines nor the dashboard raw", async () => {
    const reason =
      "the task failed: \u001b]8;;https://evil.example/\u001b\\see\u001b]8;;\u001b\\ \u001b]0;owned\u0007\u001b[2Jwhy\u009b1;1H";
    const failed: EngineEvent = {
      type: "task:failed",
      key: "a-1",
      job: "a",
      label: "a-1",
      state: "failed",
      reason,
    };
    const { plain, lines } = reporter(true);
    plain.emit(started({ a: 1 }));
    plain.emit(failed);
    plain.emit({ ...finished, end: "failed", counts: { failed: 1 } });
    await plain.close();
    expect(lines.slice(0, 3)).toEqual([
      "gwrun: a-1 failed: the task failed: see why",
      "gwrun: run 7 failed after 0s: 1 task, 0 done, 1 failed; paid 1 of 25; outputs in out/spring",
      "  1 × the task failed: see why",
    ]);
    // The dashboard draws from the run's state.
    const { view } = play([started({ a: 1 }), failed]);
    expect(view.failures.map((failure) => failure.reason)).toEqual(["the task failed: see why"]);
    expect(view.reasons).toEqual([{ reason: "the task failed: see why", count: 1 }]);
  });
});
