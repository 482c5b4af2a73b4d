import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../../src/engine/index.js";
import { summaryLines } from "../../../src/ui/format.js";
import { play, started, through } from "../../helpers/ui-script.js";

const fail = (job: string, n: number, reason: string, state = "failed"): EngineEvent => ({
  type: "task:failed",
  key: `${job}-${n}`,
  job,
  label: `${job}-${n}`,
  state,
  reason,
});

describe("run state", () => {
  it("dependants awaiting their upstream count as queued; one skipped at once is one of them", () => {
    const start = started({ hero: 2, teaser: { awaiting: 3 } });
    const added: EngineEvent = {
      type: "task:added",
      key: "teaser-1",
      job: "teaser",
      label: "teaser-1",
      upstream: "hero-1",
      family: "fam-teaser",
    };
    const { view } = play([start, ...through("hero", 1), added, fail("teaser", 2, "x", "skipped")]);
    expect(view).toMatchObject({ total: 5, stages: { queued: 3, done: 1, failed: 1 }, skipped: 1 });
    expect(view.groups.find((g) => g.job === "teaser")).toMatchObject({ tasks: 3, skipped: 1 });
    const end = (reason: "done" | "budget", counts = {}): EngineEvent => ({
      type: "run:finished",
      estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
      end: reason,
      counts,
      spent: 0,
      paid: 0,
      unknownSubmits: 0,
    });
    // Run to its end, an upstream made fewer than its most: the one never made drops out.
    const done = play([start, ...through("hero", 1), ...through("hero", 2), added, end("done")]);
    expect(done.view).toMatchObject({ total: 3, stages: { queued: 1 } });
    // Stopped early, the rest is still to come, and the summary counts it as status does.
    const stopped = play([start, end("budget", { pending: 2 })]).view;
    expect(stopped).toMatchObject({ total: 5, stages: { queued: 5 } });
    expect(summaryLines(stopped, { galleryExists: false })[0]).toMatch(
      /^run 7 stopped after 0s: 5 tasks, 0 done, 2 pending, 3 awaiting upstream;/,
    );
  });

  it("counts tasks per stage as they move, overall and per job id", () => {
    const { view } = play([
      started({ hero: 2, styles: 4 }),
      ...through("hero", 1).slice(0, 1),
      ...through("styles", 1),
      ...through("styles", 2).slice(0, 1),
    ]);
    expect(view.stages).toMatchObject({ queued: 3, submitting: 2, running: 0, done: 1 });
    expect(view.groups.map((g) => [g.job, g.done, g.tasks, g.active])).toEqual([
      ["hero", 0, 2, 1],
      ["styles", 1, 4, 1],
    ]);
  });

  it("averages the progress of running tasks and forgets it when they complete", () => {
    const { view } = play([
      started({ clip: 3 }),
      { type: "task:submitted", key: "a", job: "clip", label: "a", taskId: "1" },
      { type: "task:submitted", key: "b", job: "clip", label: "b", taskId: "2" },
      { type: "task:progress", key: "a", job: "clip", label: "a", progress: 30 },
      { type: "task:progress", key: "b", job: "clip", label: "b", progress: 70 },
      { type: "task:submitted", key: "c", job: "clip", label: "c", taskId: "3" },
      { type: "task:progress", key: "c", job: "clip", label: "c", progress: 80 },
      { type: "task:completed", key: "c", job: "clip", label: "c", cost: 1.5, outputs: 1 },
    ]);
    expect(view.stages.running).toBe(2);
    expect(view.runningAverage).toBe(50);
    expect(view.stages.downloading).toBe(1);
    expect(view.spent).toBe(1.5);
  });

  it("takes tasks of a resumed run from the stage they were recorded in", () => {
    const { view } = play([
      started({ hero: { running: 2, done: 1 } }, { spent: 0.5 }),
      { type: "task:progress", key: "x", job: "hero", label: "x", progress: 40 },
      { type: "task:completed", key: "y", job: "hero", label: "y", cost: 0.5, outputs: 1 },
    ]);
    expect(view.stages).toMatchObject({ queued: 0, running: 1, downloading: 1, done: 1 });
    expect(view.total).toBe(3);
    expect(view.spent).toBe(1);
    expect(view.fraction).toBeCloseTo(1 / 3);
  });

  it("counts dependants added during the run, with their family", () => {
    const { view } = play([
      started({ hero: 1 }),
      ...through("hero", 1),
      {
        type: "task:added",
        key: "k",
        job: "teaser",
        label: "teaser-of-hero-1",
        upstream: "hero-1",
        family: "video-1",
      },
    ]);
    expect(view.total).toBe(2);
    expect(view.groups.at(-1)).toMatchObject({ job: "teaser", family: "video-1", tasks: 1 });
    expect(view.stages.queued).toBe(1);
  });

  it("keeps the last five failures and counts every reason", () => {
    const events = [started({ a: 7 })];
    for (let i = 1; i <= 7; i++)
      events.push(fail("a", i, i <= 4 ? "the task failed: nsfw" : "http 500"));
    const { view } = play(events);
    expect(view.stages.failed).toBe(7);
    expect(view.failures.map((f) => f.label)).toEqual(["a-3", "a-4", "a-5", "a-6", "a-7"]);
    expect(view.reasons).toEqual([
      { reason: "the task failed: nsfw", count: 4 },
      { reason: "http 500", count: 3 },
    ]);
  });

  it("counts skipped dependants and post-processing as their own stages", () => {
    const { view } = play([
      started({ hero: 2 }),
      ...through("hero", 1).slice(0, 5),
      { type: "task:postprocessing", key: "hero-1", job: "hero", label: "hero-1" },
      fail("hero", 2, "upstream hero-0 failed", "skipped"),
    ]);
    expect(view.stages).toMatchObject({ postprocessing: 1, failed: 1, queued: 0 });
    expect(view.failures[0]).toMatchObject({ state: "skipped" });
  });

  it("counts the skipped apart from the other failures, from the start and as they come", () => {
    const { view } = play([
      started({ hero: { failed: 2 }, teaser: { queued: 2, skipped: 1 } }),
      fail("teaser", 1, "upstream hero-1 failed", "skipped"),
    ]);
    expect(view.stages.failed).toBe(4);
    expect(view.skipped).toBe(2);
    expect(view.groups.map((g) => [g.job, g.failed, g.skipped])).toEqual([
      ["hero", 2, 0],
      ["teaser", 2, 2],
    ]);
  });

  it("shows the rate limit and a backoff only until they expire", () => {
    const t0 = 1_000_000;
    const events: EngineEvent[] = [
      started({ a: 1 }),
      { type: "gateway:rate-limited", retryAfterMs: 3000, ratePerSecond: 2.5 },
      { type: "gateway:retry", what: "poll", delayMs: 500, reason: "http 500" },
    ];
    const during = play(events, { t0, at: t0 + 400 }).view;
    expect(during.rateLimitedMs).toBe(2600);
    expect(during.ratePerSecond).toBe(2.5);
    expect(during.backoffMs).toBe(100);
    const after = play(events, { t0, at: t0 + 3000 }).view;
    expect(after.rateLimitedMs).toBe(0);
    expect(after.backoffMs).toBe(0);
  });

  it("measures tasks per minute over the last minute and the time left from it", () => {
    const events = [started({ a: 40 })];
    for (let i = 1; i <= 10; i++) events.push(...through("a", i));
    // Ten jobs done over 60 s (one event a second): 10 per minute, 30 left → 3 minutes.
    const { view } = play(events, { stepMs: 1000 });
    expect(view.tasksPerMinute).toBeCloseTo(10, 0);
    expect(view.etaMs).toBeGreaterThan(2.5 * 60_000);
    expect(view.etaMs).toBeLessThan(3.5 * 60_000);
    expect(view.elapsedMs).toBe(61_000);
  });

  it("has no time left to guess before anything finished, and a phase per moment", () => {
    expect(play([]).view.phase).toBe("starting");
    const running = play([started({ a: 2 })]).view;
    expect(running.phase).toBe("running");
    expect(running.etaMs).toBeNull();
    const stopping = play([
      started({ a: 2 }),
      { type: "run:stopping", reason: "budget", message: "budget reached: max_cost 25" },
    ]).view;
    expect(stopping.phase).toBe("stopping");
    expect(stopping.stopMessage).toMatch(/budget reached/);
  });

  it("shows the output folder and the gallery relative to the working folder", () => {
    const { view } = play([started({ a: 1 })]);
    expect(view.outputDir).toBe("out/spring");
    expect(view.gallery).toBe("out/spring/index.html");
  });
});
