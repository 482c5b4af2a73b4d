import { describe, expect, it } from "vitest";
import { stateCounts, withEngine } from "../../helpers/engine.js";

/**
 * `max_cost` in virtual time against the simulator, which charges family B its stated 0.20 per
 * image and family A (no price in the spec) 0.10 per image. Tasks take 10 s of gateway time.
 */

const TEN_SECONDS = { latencySeconds: { image: 10 } };
const ADVICE = "raise max_cost and run again; done work is not paid twice";

/** Four family B images at 0.20 and four family A images at an unknown price (0.10 at the sim). */
function mixed(limits: string): string {
  const takes = "[1, 2, 3, 4]";
  return `limits: ${limits}
poll: { first_after: 5s, every: 2s }
jobs:
  - { id: priced, model: acme2.7-image, matrix: { take: ${takes} }, prompt: "A mug, take {{take}}", size: "1024x1024" }
  - { id: unpriced, model: acme-image-2, matrix: { take: ${takes} }, prompt: "A cup, take {{take}}", size: "256x256" }
`;
}

describe("the budget, in virtual time", () => {
  it("reserves unknown_cost for each unknown-price task, so a priced and unpriced mix never spends past max_cost", async () => {
    // Everything would cost 0.8 + 0.4; at 0.20 reserved per unknown price, 1 covers five tasks.
    await withEngine(
      TEN_SECONDS,
      mixed("{ submit_rate: 5/s, max_in_flight: 20, max_cost: 1, unknown_cost: 0.2 }"),
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        expect(result.end).toBe("budget");
        expect(result.spent).toBeLessThanOrEqual(1);
        expect(result.counts).toMatchObject({ done: 5, pending: 3 });
        expect(rig.sim.counters().charged).toBeLessThanOrEqual(1);
        const stop = rig.events.find((event) => event.type === "run:stopping");
        expect(stop).toMatchObject({ reason: "budget" });
        expect(stop?.type === "run:stopping" && stop.message.endsWith(ADVICE)).toBe(true);
      },
    );
  });

  it("counts a text answer, which reports no cost, at unknown_cost against max_cost", async () => {
    // The spec prices no text call: each answer counts 0.3, so 1 covers three of five, one at a time.
    const manifest = `limits: { submit_rate: 5/s, max_in_flight: 1, max_cost: 1, unknown_cost: 0.3 }
jobs:
  - id: notes
    endpoint: chat
    model: acme-5
    matrix: { n: [1, 2, 3, 4, 5] }
    messages: [{ role: user, content: "caption {{n}}" }]
`;
    await withEngine({}, manifest, async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result.end).toBe("budget");
      expect(stateCounts(await rig.tasks())).toMatchObject({ done: 3, pending: 2 });
    });
  });

  it("counts tasks an earlier process paid for, still to be checked, against max_cost", async () => {
    const manifest = mixed("{ submit_rate: 5/s, max_in_flight: 20, max_cost: 0.5 }");
    await withEngine(TEN_SECONDS, manifest, async (rig) => {
      // Two priced tasks came back and were downloaded at 0.20 each before that process died.
      const paid = (await rig.tasks()).filter((task) => task.job_id === "priced").slice(0, 2);
      for (const task of paid)
        rig.store.db
          .prepare("UPDATE jobs SET state = 'downloaded', task_id = ?, cost = 0.2 WHERE key = ?")
          .run(`t-${task.key}`, task.key);

      const result = await rig.finish(rig.engine().run());

      // 0.4 is spent: the next priced task at 0.20 would pass 0.5.
      expect(result.end).toBe("budget");
      expect(result.counts).toMatchObject({ done: 2, pending: 6 });
      expect(rig.sim.counters().submits.received).toBe(0);
    });
  });
});
