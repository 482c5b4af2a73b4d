import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { displayWidth } from "../../../src/core/text-width.js";
import type { EngineEvent } from "../../../src/engine/index.js";
import { Dashboard } from "../../../src/ui/components/Dashboard.js";
import type { RunView } from "../../../src/ui/run-view.js";
import { play, started, through } from "../../helpers/ui-script.js";

function frame(
  view: RunView,
  size: { columns?: number; rows?: number } = {},
  extra: { notice?: string; galleryExists?: boolean; qPressed?: boolean } = {},
): string {
  const { lastFrame, unmount } = render(
    <Dashboard
      view={view}
      columns={size.columns ?? 100}
      rows={size.rows ?? 40}
      keys={extra.qPressed !== undefined}
      onKey={() => {}}
      qPressed={extra.qPressed ?? false}
      notice={extra.notice ?? null}
      galleryExists={extra.galleryExists ?? false}
    />,
  );
  const text = lastFrame() ?? "";
  unmount();
  return text;
}

const failed = (n: number, reason: string): EngineEvent => ({
  type: "task:failed",
  key: `styles-${n}`,
  job: "styles",
  label: `styles-e${n}`,
  state: "failed",
  reason,
});

describe("dashboard", () => {
  it("shows the run, its counts per stage and a bar per job id", () => {
    const { view } = play([
      started({ hero: 2, styles: 4 }),
      ...through("hero", 1),
      ...through("hero", 2),
      ...through("styles", 1).slice(0, 3),
    ]);
    const text = frame(view);
    expect(text).toContain("spring · run 7");
    expect(text).toContain("paid 1 of 25");
    expect(text).toMatch(/33% 2\/6/);
    expect(text).toContain("queued 3  submitting 0  running 1 (avg 50%)  downloading 0");
    expect(text).toContain("done 2  failed 0");
    expect(text).toMatch(/hero\s+fam-hero\s+█+ 2\/2/);
    expect(text).toMatch(/styles\s+fam-styles\s+░+ 0\/4 1 active/);
  });

  it("fills the overall bar as jobs finish", () => {
    const bars = [0, 2, 4].map((n) => {
      const events = [started({ a: 4 })];
      for (let i = 1; i <= n; i++) events.push(...through("a", i));
      const line = frame(play(events).view, { columns: 60 }).split("\n")[1] ?? "";
      return (line.match(/█/g) ?? []).length;
    });
    expect(bars[0]).toBe(0);
    expect(bars[1]).toBeGreaterThan(20);
    expect(bars[1]).toBeLessThan(bars[2] as number);
    expect(bars[2]).toBe(60 - " 100% 4/4".length);
  });

  it("lists the last failures with their reasons", () => {
    const { view } = play([
      started({ styles: 4 }),
      failed(1, "the task failed: content filtered"),
      failed(2, "http 422: size not allowed"),
    ]);
    const text = frame(view);
    expect(text).toContain("last failures:");
    expect(text).toContain("styles-e1 failed: the task failed: content filtered");
    expect(text).toContain("styles-e2 failed: http 422: size not allowed");
    expect(text).toMatch(/styles.*0\/4 2 failed/);
  });

  it("warns while the gateway is rate limiting, and not after", () => {
    const events: EngineEvent[] = [
      started({ a: 3 }),
      { type: "gateway:rate-limited", retryAfterMs: 5000, ratePerSecond: 2.5 },
    ];
    const t0 = 1_000_000;
    expect(frame(play(events, { t0, at: t0 + 1000 }).view)).toContain(
      "⚠ rate limited: 4s left, submitting at 2.50/s",
    );
    expect(frame(play(events, { t0, at: t0 + 6000 }).view)).not.toContain("rate limited");
    const backoff: EngineEvent = {
      type: "gateway:retry",
      what: "poll",
      delayMs: 2000,
      reason: "x",
    };
    expect(frame(play([started({ a: 1 }), backoff], { t0, at: t0 + 500 }).view)).toContain(
      "⚠ backing off: retry in 2s",
    );
  });

  it("ends with a summary: counts, failures by reason, spend, output folder, gallery", () => {
    const { view } = play([
      started({ hero: 2, styles: 2 }),
      ...through("hero", 1),
      ...through("hero", 2),
      failed(1, "the task failed: content filtered"),
      failed(2, "the task failed: content filtered"),
      {
        type: "run:finished",
        estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
        end: "failed",
        counts: { done: 2, failed: 2 },
        spent: 1,
        paid: 1,
        unknownSubmits: 0,
      },
    ]);
    const text = frame(view, {}, { galleryExists: true });
    expect(text).toContain(
      "run 7 failed after 0s: 4 tasks, 2 done, 2 failed; paid 1 of 25; outputs in out/spring",
    );
    expect(text).toContain("2 × the task failed: content filtered");
    expect(text).toContain("gallery: out/spring/index.html; results: out/spring/results.jsonl");
    expect(text).not.toContain("last failures:");
    expect(text).not.toContain("q or Ctrl-C");
    expect(frame(view, {}, { galleryExists: false })).not.toContain("gallery:");
  });

  it("fits a narrow, short terminal: lines cut, stages wrapped, fewer job rows", () => {
    const groups: Record<string, number> = {};
    for (let i = 1; i <= 30; i++) groups[`job-number-${i}`] = 2;
    const { view } = play([started(groups), failed(1, "a very long reason ".repeat(10))]);
    const text = frame(view, { columns: 40, rows: 16 });
    const lines = text.split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines.length).toBeLessThanOrEqual(16);
    expect(text).toContain("job-number-1 ");
    expect(text).toMatch(/… and \d+ more jobs/);
    expect(text).not.toContain("job-number-30");
  });

  it("tells which stop key was pressed", () => {
    const onKey = vi.fn();
    const { stdin, unmount } = render(
      <Dashboard
        view={play([started({ a: 1 })]).view}
        columns={80}
        rows={20}
        keys={true}
        onKey={onKey}
        qPressed={false}
        notice={null}
        galleryExists={false}
      />,
    );
    stdin.write("x");
    stdin.write("q");
    stdin.write("\u0003");
    expect(onKey.mock.calls).toEqual([["other"], ["q"], ["ctrl-c"]]);
    unmount();
  });

  it("after one q the screen asks for a second, to stop or, once stopping, to exit", () => {
    const running = play([started({ a: 1 })]).view;
    expect(frame(running, {}, { qPressed: false })).toContain("q or Ctrl-C: stop");
    const asked = frame(running, {}, { qPressed: true });
    expect(asked).toContain("press q again to stop");
    expect(asked).not.toContain("q or Ctrl-C: stop");
    const stopping = play([
      started({ a: 1 }),
      { type: "run:stopping", reason: "interrupted", message: "interrupted: no new submits" },
    ]).view;
    expect(frame(stopping, {}, { qPressed: true, notice: "stopping" })).toContain(
      "press q again to exit at once",
    );
  });

  it("an interrupted run's header says interrupted, not finished", () => {
    const { view } = play([
      started({ a: 2 }),
      ...through("a", 1),
      { type: "run:stopping", reason: "interrupted", message: "interrupted: no new submits" },
      {
        type: "run:finished",
        estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
        end: "interrupted",
        counts: { done: 1, pending: 1 },
        spent: 0.5,
        paid: 0.5,
        unknownSubmits: 0,
      },
    ]);
    const header = frame(view).split("\n")[0] ?? "";
    expect(header).toMatch(/spring · run 7 · \d+s elapsed · interrupted · paid/);
    expect(header).not.toContain("finished");
    // A narrow screen cuts the name, not how the run ended.
    expect(frame(view, { columns: 40 }).split("\n")[0]).toMatch(/… · interrupted · paid/);
  });

  it("the header names the simulator first, also on a narrow screen, and the summary says so", () => {
    const { view } = play([started({ a: 1 }, { simulator: true }), ...through("a", 1)]);
    expect(frame(view).split("\n")[0]).toMatch(/^SIMULATOR · spring · run 7 · \d+s elapsed/);
    expect(frame(view, { columns: 40 }).split("\n")[0]).toMatch(
      /^SIMULATOR · .* · paid 0\.5 of 25$/,
    );
    const ended = play([
      started({ a: 1 }, { simulator: true }),
      ...through("a", 1),
      {
        type: "run:finished",
        estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
        end: "done",
        counts: { done: 1 },
        spent: 0.5,
        paid: 0.5,
        unknownSubmits: 0,
      },
    ]).view;
    expect(frame(ended, { columns: 200 })).toMatch(
      /run 7 done after .*; against the built-in simulator: stand-in outputs, no real money/,
    );
    // A real gateway's run is not marked.
    const real = play([started({ a: 1 }), ...through("a", 1)]).view;
    expect(frame(real)).not.toMatch(/SIMULATOR|simulator/);
  });

  it("a run with failures ends on a bar counting every task ended, failed and skipped apart", () => {
    const { view } = play([
      started({ hero: 2, teaser: 2 }),
      ...through("hero", 1),
      {
        type: "task:failed",
        key: "hero-2",
        job: "hero",
        label: "hero-2",
        state: "failed",
        reason: "the task failed: content filtered",
      },
      ...through("teaser", 1),
      {
        type: "task:failed",
        key: "teaser-2",
        job: "teaser",
        label: "teaser-2",
        state: "skipped",
        reason: "upstream hero-2 failed",
      },
      {
        type: "run:finished",
        estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
        end: "failed",
        counts: { done: 2, failed: 1, skipped: 1 },
        spent: 1,
        paid: 1,
        unknownSubmits: 0,
      },
    ]);
    const text = frame(view);
    // The overall bar counts the ended tasks, however they ended.
    expect(text).toMatch(/█+ 100% 4\/4/);
    expect(text).toMatch(/done 2 {2}failed 1\s+skipped 1/);
    expect(text).toMatch(/hero\s+fam-hero\s+█+ 1\/2 1 failed$/m);
    expect(text).toMatch(/teaser\s+fam-teaser\s+█+ 1\/2 1 skipped$/m);
  });

  it("between submit and first poll, tasks show as waiting with the time to the poll", () => {
    const t0 = 1_000_000;
    const submitted = (n: number): EngineEvent[] => [
      { type: "task:submitting", key: `a-${n}`, job: "a", label: `a-${n}` },
      {
        type: "task:submitted",
        key: `a-${n}`,
        job: "a",
        label: `a-${n}`,
        taskId: `t-${n}`,
        firstPollInMs: 15_000,
      },
    ];
    const events = [started({ a: 3 }), ...submitted(1), ...submitted(2)];
    const waiting = frame(play(events, { t0, at: t0 + 3_000 }).view);
    expect(waiting).toContain("waiting 2 (first poll in 12s)  running 0 (avg 0%)");
    const progress: EngineEvent = {
      type: "task:progress",
      key: "a-1",
      job: "a",
      label: "a-1",
      progress: 40,
    };
    const polled = frame(play([...events, progress], { t0, at: t0 + 15_000 }).view);
    expect(polled).toContain("submitting 0  running 2 (avg 20%)");
    expect(polled).not.toContain("waiting");
  });

  it("says it is starting until the run has started", () => {
    expect(frame(play([]).view)).toBe("gwrun: starting the run…");
  });

  it("shows why the run is stopping", () => {
    const { view } = play([
      started({ a: 1 }),
      { type: "run:stopping", reason: "interrupted", message: "interrupted: no new submits" },
    ]);
    const text = frame(
      view,
      {},
      { notice: "stopping: no new submits; Ctrl-C again to exit at once" },
    );
    expect(text).toContain("interrupted: no new submits");
    expect(text).toContain("Ctrl-C again to exit at once");
  });

  it("active jobs come first and finished ones fold into one line when not all fit", () => {
    const groups: Record<string, number> = {};
    for (let i = 1; i <= 15; i++) groups[`job-${String(i).padStart(2, "0")}`] = 1;
    const events = [started(groups)];
    for (let i = 1; i <= 12; i++) events.push(...through(`job-${String(i).padStart(2, "0")}`, 1));
    // The last three jobs have a task under way, the one before them failed.
    for (const job of ["job-13", "job-14", "job-15"])
      events.push(...(through(job, 1).slice(0, 2) as EngineEvent[]));
    const text = frame(play(events).view, { columns: 80, rows: 16 });
    expect(text).toMatch(/^job-13\s.*0\/1 1 active$/m);
    expect(text).toMatch(/^job-15\s.*0\/1 1 active$/m);
    expect(text).toMatch(/^12 jobs done$/m);
    expect(text).not.toMatch(/^job-01\s/m);
    expect(text).not.toContain("more jobs");
    // With room for all, every job keeps its place in the manifest's order.
    const tall = frame(play(events).view, { columns: 80, rows: 40 });
    expect(tall).toMatch(/^job-01\s[\s\S]*^job-15\s/m);
    expect(tall).not.toContain("jobs done");
  });

  it("with more active jobs than rows, the fold line counts those left out and those finished", () => {
    const groups: Record<string, number> = {};
    for (let i = 1; i <= 20; i++) groups[`job-${i}`] = 2;
    const events = [started(groups), ...through("job-1", 1), ...through("job-1", 2)];
    // job-2 has one task done, one still queued.
    events.push(...through("job-2", 1));
    for (let i = 3; i <= 20; i++)
      events.push(...(through(`job-${i}`, 1).slice(0, 2) as EngineEvent[]));
    const text = frame(play(events).view, { columns: 80, rows: 16 });
    expect(text).toMatch(/^… and \d+ more jobs to go · 1 job done$/m);
    expect(text).not.toMatch(/^job-1\s/m);
  });

  it("CJK and emoji job names keep the bars aligned", () => {
    const events = [started({ 猫の写真: 2, "ok-👍🏽": 2, plain: 2 }), ...through("plain", 1)];
    const text = frame(play(events).view, { columns: 80 });
    const rows = text.split("\n").filter((line) => /[█░]/.test(line) && !/%/.test(line));
    expect(rows).toHaveLength(3);
    const barStarts = rows.map((line) => displayWidth(line.slice(0, line.search(/[█░]/))));
    expect(new Set(barStarts).size).toBe(1);
  });
});
