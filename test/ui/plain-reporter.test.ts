import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/index.js";
import { plainReporter } from "../../src/ui/plain-reporter.js";
import { started, through } from "./script.js";

function reporter(quiet = false) {
  const lines: string[] = [];
  let now = 1_000_000;
  const plain = plainReporter({
    write: (line) => lines.push(line),
    now: () => now,
    cwd: "/work",
    intervalMs: 2000,
    quiet,
    galleryExists: () => true,
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { plain, lines, advance };
}

const finished: EngineEvent = {
  type: "run:finished",
  end: "done",
  counts: { done: 2 },
  spent: 1,
  unknownSubmits: 0,
};

describe("plain reporter", () => {
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
      "gwrun: 0/2 done, 0 failed · queued 2 · submitting 0 · running 0 (avg 0%) · downloading 0 · 0/min · spent 0 of 25 · ETA –",
      "gwrun: 1/2 done, 0 failed · queued 1 · submitting 0 · running 0 (avg 0%) · downloading 0 · 24/min · spent 0.5 of 25 · ETA 3s",
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
      "gwrun: run 7 failed: 1 done, 1 rejected; spent 1 of 25; outputs in out/spring",
      "  1 × http 422: bad size",
      "gallery: out/spring/index.html; results: out/spring/results.jsonl",
    ]);
  });

  it("item 2: ends a budget stop and its summary with how to continue", async () => {
    const { plain, lines } = reporter(true);
    plain.emit(started({ a: 3 }));
    for (const event of through("a", 1)) plain.emit(event);
    const message =
      "budget reached: max_cost 25 (spent 0.5 plus tasks running); raise max_cost and run again; done work is not paid twice";
    plain.emit({ type: "run:stopping", reason: "budget", message });
    plain.emit({ ...finished, end: "budget", counts: { done: 1, pending: 2 }, spent: 0.5 });
    await plain.close();
    expect(lines).toEqual([
      `gwrun: ${message}`,
      "gwrun: run 7 stopped: 1 done, 2 pending; spent 0.5 of 25; outputs in out/spring; raise max_cost and run again; done work is not paid twice",
      "gallery: out/spring/index.html; results: out/spring/results.jsonl",
    ]);
  });
});
