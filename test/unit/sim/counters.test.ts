import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { withSimulator } from "../../helpers/sim.js";

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

  it("count a submit when it arrives, not when its body has been read", async () => {
    await withSimulator({}, async ({ client, clock, sim }) => {
      await client.submit(IMAGES, imageA("one"));
      // Two arrives with one; its body comes 1,100 ms later, with three and four.
      const body = JSON.stringify(imageA("two"));
      const two = request(`${sim.url}${IMAGES}`, {
        method: "POST",
        headers: {
          authorization: "Bearer test-key",
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      });
      const answered = new Promise((resolve) =>
        two.on("response", (res) => res.resume().on("end", resolve)),
      );
      two.flushHeaders();
      await expect.poll(() => sim.counters().requests).toBe(2);
      clock.advance(1100);
      two.end(body);
      await answered;
      await client.submit(IMAGES, imageA("three"));
      await client.submit(IMAGES, imageA("four"));
      expect(sim.counters().submits.accepted).toBe(4);
      expect(sim.counters().submits.busiest_second).toBe(2);
    });
  });
});
