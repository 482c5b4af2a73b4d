import { describe, expect, it } from "vitest";
import { QUEUE_WINDOW } from "../../../src/engine/pending-window.js";
import { mugsGrid, withRun } from "../../helpers/run.js";

/**
 * Through the CLI: a run longer than its queue's window reads its queued
 * tasks from the store page by page, and still sends each once, in the order recorded.
 */

const TASKS = Math.ceil((2.5 * QUEUE_WINDOW) / 100) * 100;

describe("a run longer than its queue's window", () => {
  it("sends every queued task once, in the order recorded, and tells all of them queued from the start", async () => {
    await withRun({ seed: "window" }, async (scope) => {
      const file = mugsGrid(scope, "many", TASKS);
      const run = await scope.gwrun(["run", file, "--json"]).done;
      expect(run.code).toBe(0);
      const events = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; key?: string; tasks?: number });
      expect(events.find((event) => event.type === "run:started")).toMatchObject({
        tasks: TASKS,
        groups: [{ stages: { queued: TASKS } }],
      });
      expect(events.filter((event) => event.type === "task:done")).toHaveLength(TASKS);
      expect(scope.sim.counters().submits.accepted).toBe(TASKS);
      // Sent in the order recorded: the first submits are the first tasks, window after window.
      const recorded = (await scope.tasks()).map((task) => task.key);
      const sent = events.filter((event) => event.type === "task:submitting");
      const rank = new Map(recorded.map((key, i) => [key, i]));
      const late = sent.filter((event, i) => Math.abs((rank.get(event.key ?? "") ?? -1) - i) > 64);
      expect(late).toEqual([]);
    });
  });
});
