import { describe, expect, it } from "vitest";
import { stateCounts, stillsJobs, withEngine } from "../../helpers/engine.js";

/**
 * One pace for every call: against a gateway whose limit counts task queries as well as
 * submits, a run learns it from the first query answered 429 and its polls take turns from
 * then on; against one that counts submits only, polls never wait for a turn. The manifest
 * asks twice the limit, as a user who does not know it would.
 */

const JOBS = 600;
const LIMIT = 20;

function manifest(rate: number): string {
  return `limits: { submit_rate: ${rate}/s, max_in_flight: 1000 }
poll: { first_after: 5s, every: 2s, batch_size: 50 }
${stillsJobs(JOBS)}`;
}

describe("one pace for submits and queries", () => {
  it.each([
    ["announced", true],
    ["not announced", false],
  ])(
    "keeps 429s to one call in 200 or fewer against a limit that counts every call (%s)",
    async (_, announced) => {
      await withEngine(
        {
          latencySeconds: { image: 10 },
          rateLimit: { perSecond: LIMIT, burst: LIMIT, counts: "calls", announced },
        },
        manifest(2 * LIMIT),
        async (rig) => {
          const result = await rig.finish(rig.engine().run());
          expect(result.end).toBe("done");
          expect(stateCounts(await rig.tasks())).toEqual({ done: JOBS });
          const counters = rig.sim.counters();
          const calls =
            counters.submits.received + counters.queries.single + counters.queries.batch;
          const refused = counters.errors["429"] ?? 0;
          expect(counters.queries.batch).toBeGreaterThan(JOBS / 50);
          expect(refused / calls).toBeLessThanOrEqual(0.005);
        },
      );
    },
    120_000,
  );

  it.each([
    ["announced", true, 0, 0.97],
    ["not announced", false, 3, 0.93],
  ])(
    "lets polls go at once against a limit that counts submits only (%s): submits keep its rate",
    async (_, announced, most429s, fraction) => {
      await withEngine(
        { latencySeconds: { image: 10 }, rateLimit: { perSecond: LIMIT, burst: LIMIT, announced } },
        manifest(2 * LIMIT),
        async (rig) => {
          const result = await rig.finish(rig.engine().run());
          expect(result.end).toBe("done");
          expect(rig.sim.counters().errors["429"] ?? 0).toBeLessThanOrEqual(most429s);
          // Polls took none of the submits' turns. Under an announced limit the pace settles
          // at 0.97 of it; under a silent one, at 0.97 of what got through between two 429s.
          const times = (await rig.tasks()).map((task) => task.submitted_at ?? 0);
          const rate = (JOBS - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
          expect(rate / LIMIT).toBeGreaterThanOrEqual(fraction);
        },
      );
    },
    120_000,
  );
});
