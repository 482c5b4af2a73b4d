import { describe, expect, it } from "vitest";
import { decideDueTicks, LATE_MS } from "../../../src/schedule/index.js";

const H = 3_600_000;
const what = (decisions: ReturnType<typeof decideDueTicks>) =>
  decisions.map((d) => `${d.tick / H}:${d.action}/${d.trigger}`);

describe("what becomes of due ticks", () => {
  it("runs the newest tick on time and treats older ones by catch_up", () => {
    const due = [1 * H, 2 * H, 3 * H];
    const now = 3 * H + LATE_MS;
    const decide = (catchUp: "none" | "latest" | "all") =>
      what(decideDueTicks(due, { now, busyUntil: 0, schedule: { overlap: "skip", catchUp } }));
    expect(decide("none")).toEqual(["1:missed/catch-up", "2:missed/catch-up", "3:run/on-time"]);
    // The on-time tick is the latest: nothing older is caught up.
    expect(decide("latest")).toEqual(["1:missed/catch-up", "2:missed/catch-up", "3:run/on-time"]);
    expect(decide("all")).toEqual(["1:run/catch-up", "2:run/catch-up", "3:run/on-time"]);
  });

  it("catches up only the newest of late ticks with catch_up: latest", () => {
    const decisions = decideDueTicks([1 * H, 2 * H], {
      now: 2 * H + LATE_MS + 1,
      busyUntil: 0,
      schedule: { overlap: "skip", catchUp: "latest" },
    });
    expect(what(decisions)).toEqual(["1:missed/catch-up", "2:run/catch-up"]);
  });

  it("skips or waits for ticks that fell during its own run", () => {
    const context = { now: 2.5 * H, busyUntil: 2.5 * H };
    expect(
      what(decideDueTicks([2 * H], { ...context, schedule: { overlap: "skip", catchUp: "all" } })),
    ).toEqual(["2:skipped/on-time"]);
    expect(
      what(decideDueTicks([2 * H], { ...context, schedule: { overlap: "wait", catchUp: "none" } })),
    ).toEqual(["2:run/on-time"]);
  });
});
