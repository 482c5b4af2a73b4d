import chalk from "chalk";
import { render } from "ink-testing-library";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../../src/engine/index.js";
import { Dashboard } from "../../../src/ui/components/Dashboard.js";
import { play, started, through } from "../../helpers/ui-script.js";

// In colour, as the dashboard reporter sets it for a terminal (Ink draws with chalk's level);
// put back after, for the files that share this worker.
const level = chalk.level;
beforeAll(() => {
  chalk.level = 1;
});
afterAll(() => {
  chalk.level = level;
});

const GREEN = "\u001b[32m";
const RED = "\u001b[31m";
const YELLOW = "\u001b[33m";

/** The overall bar of `events`' run on a screen 40 columns wide, with its colour codes. */
function barOf(events: readonly EngineEvent[]): string {
  const { lastFrame, unmount } = render(
    <Dashboard
      view={play(events).view}
      columns={40}
      rows={30}
      keys={false}
      onKey={() => {}}
      qPressed={false}
      notice={null}
      galleryExists={false}
    />,
  );
  const text = lastFrame() ?? "";
  unmount();
  return text.split("\n")[1] ?? "";
}

/** The cells of the bar drawn in `colour`. */
const cellsIn = (text: string, colour: string) =>
  [...text.matchAll(new RegExp(`${colour.replace("[", "\\[")}(█+)`, "g"))]
    .map((match) => match[1] ?? "")
    .join("").length;

const ended = (job: string, n: number, state: string): EngineEvent => ({
  type: "task:failed",
  key: `${job}-${n}`,
  job,
  label: `${job}-${n}`,
  state,
  reason: "the task failed: content filtered",
});

const finished: EngineEvent = {
  type: "run:finished",
  estimate: { estimate: 0, atUnknownCost: 0, unpriced: 0 },
  end: "failed",
  counts: {},
  spent: 0,
  paid: 0,
  unknownSubmits: 0,
};

describe("the overall bar in colour", () => {
  it("a run with failures ends on a bar showing failed in red and skipped in yellow, not all green", () => {
    const events = [started({ a: 8 })];
    for (let n = 1; n <= 6; n++) events.push(...through("a", n));
    events.push(ended("a", 7, "failed"), ended("a", 8, "skipped"), finished);
    const bar = barOf(events);
    expect(bar).toContain("100% 8/8");
    expect(cellsIn(bar, RED)).toBeGreaterThan(0);
    expect(cellsIn(bar, YELLOW)).toBeGreaterThan(0);
    expect(cellsIn(bar, GREEN)).toBe(
      40 - " 100% 8/8".length - cellsIn(bar, RED) - cellsIn(bar, YELLOW),
    );
  });

  it("a single failure among many still shows in red", () => {
    const events = [started({ a: 200 })];
    for (let n = 1; n <= 199; n++) events.push(...through("a", n));
    events.push(ended("a", 200, "failed"), finished);
    expect(cellsIn(barOf(events), RED)).toBe(1);
  });
});
