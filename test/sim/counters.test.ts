import { describe, expect, it } from "vitest";
import { withSimulator } from "../helpers/sim.js";

const IMAGES = "/v1/images/generations";
const imageA = (prompt: string) => ({ model: "acme-image-2", prompt });

describe("simulator counters", () => {
  it("tell the most submits accepted within any one second", async () => {
    await withSimulator(
      { rateLimit: { perSecond: 2, burst: 3 } },
      async ({ client, clock, sim }) => {
        await client.submit(IMAGES, imageA("one"));
        await client.submit(IMAGES, imageA("two"));
        clock.advance(600);
        await client.submit(IMAGES, imageA("three"));
        clock.advance(600);
        await client.submit(IMAGES, imageA("four"));
        // one, two and three fell within 600 ms; four came 1,200 ms after the first two.
        expect(sim.counters().submits.busiest_second).toBe(3);
      },
    );
  });
});
