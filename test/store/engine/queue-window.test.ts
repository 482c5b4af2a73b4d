import { describe, expect, it } from "vitest";
import { QUEUE_WINDOW } from "../../../src/engine/pending-window.js";
import { TaskState } from "../../../src/store/index.js";
import { withEngine } from "../../helpers/engine.js";

/**
 * A run holds a window of its queued tasks, not all of them: the rest wait in the store and
 * are read a page at a time as the queue drains, in the order they were recorded.
 */

const TASKS = 20_000;
const IN_FLIGHT = 50;

/** 200 × 100 small pictures, each 1 s at the gateway: twenty windows' worth. */
const MANIFEST = `limits: { submit_rate: 1000/s, max_in_flight: ${IN_FLIGHT} }
poll: { first_after: 1s, every: 1s, batch_size: 50 }
jobs:
  - id: mugs
    model: acme-image-2
    matrix: { row: [${Array.from({ length: 200 }, (_, i) => i + 1).join(", ")}], column: [${Array.from({ length: 100 }, (_, i) => i + 1).join(", ")}] }
    prompt: "A ceramic mug, row {{row}}, column {{column}}"
    size: "64x64"
`;

describe("a run's queue", () => {
  it("a run of 20,000 queued tasks holds at most its window of them, plus those in flight", async () => {
    await withEngine({ latencySeconds: { image: 1 } }, MANIFEST, async (rig) => {
      const engine = rig.engine();
      const running = engine.run();
      let most = { queued: 0, inFlight: 0 };
      let done = 0;
      // Past a window and a half of tasks: the queue, topped up each time half of it is gone,
      // has been read from the store again twice.
      await rig.until(() => {
        const held = engine.tasksHeld;
        most = {
          queued: Math.max(most.queued, held.queued),
          inFlight: Math.max(most.inFlight, held.inFlight),
        };
        done = rig.events.filter((event) => event.type === "task:done").length;
        return done >= 1.5 * QUEUE_WINDOW;
      });
      engine.stop();
      await rig.finish(running);

      // The reporters still hear of every task, queued, from the start.
      const started = rig.events.find((event) => event.type === "run:started");
      expect(started).toMatchObject({ tasks: TASKS, groups: [{ stages: { queued: TASKS } }] });
      expect(most.queued).toBeGreaterThan(0);
      expect(most.queued).toBeLessThanOrEqual(QUEUE_WINDOW);
      expect(most.inFlight).toBeLessThanOrEqual(IN_FLIGHT);
      // Submitted in the order recorded: every task that left the queue is ahead of every
      // task still in it.
      const states = (await rig.tasks()).map((task) => task.state);
      const sent = states.filter((state) => state !== TaskState.Pending).length;
      expect(sent).toBeGreaterThanOrEqual(done);
      expect(states.slice(0, sent)).not.toContain(TaskState.Pending);
      expect(states.slice(sent)).toEqual(Array(TASKS - sent).fill(TaskState.Pending));
    });
  });
});
