import { describe, expect, it } from "vitest";
import { simOptionsOf } from "../../../src/cli/sim.js";
import { FAMILIES, type Family } from "../../../src/families/index.js";
import { latencyOf } from "../../../src/sim/latency.js";
import { withSimulator } from "../../helpers/sim.js";

const family = (id: string) => FAMILIES.find((candidate) => candidate.id === id) as Family;
const DRAWS = [0, 0.3, 0.999];

type Flags = Parameters<typeof simOptionsOf>[0];
const flags = (latency: string[]): Flags => ({
  port: "0",
  host: "127.0.0.1",
  timeScale: "1",
  retention: "7d",
  linkTtl: "24h",
  batchShape: "list",
  rateLimitCounts: "generations",
  videoResult: "videos",
  latency,
});

describe("simulator latency", () => {
  it("takes exactly the fixed time for a lane, still queued for a while first", () => {
    for (const id of ["image-a", "image-c", "image-edits"]) {
      for (const draw of DRAWS) {
        const latency = latencyOf(family(id), draw, { image: 15 });
        expect(latency.queueSeconds + latency.runSeconds).toBeCloseTo(15, 9);
        expect(latency.queueSeconds).toBeGreaterThan(0);
        expect(latency.estimatedSeconds).toBe(15);
      }
    }
    // Family B starts at once: it spends all of it processing.
    expect(latencyOf(family("image-b"), 0.5, { image: 15 })).toMatchObject({
      queueSeconds: 0,
      runSeconds: 15,
    });
  });

  it("lets a family's own time win over its lane's, and leaves other lanes random", () => {
    const fixed = { image: 15, "image-d": 4 };
    const imageD = latencyOf(family("image-d"), 0.9, fixed);
    expect(imageD.queueSeconds + imageD.runSeconds).toBeCloseTo(4, 9);
    expect(imageD.queueSeconds).toBeLessThanOrEqual(2);
    const totals = DRAWS.map((draw) => {
      const video = latencyOf(family("video-1"), draw, fixed);
      return video.queueSeconds + video.runSeconds;
    });
    expect(new Set(totals).size).toBe(DRAWS.length);
  });

  it("completes an image task exactly when the fixed time is up, not before", async () => {
    await withSimulator({ latencySeconds: { image: 15 } }, async ({ client, clock }) => {
      const { taskId } = await client.submit("/v1/images/generations", {
        model: "acme-image-2",
        prompt: "a ceramic mug",
      });
      clock.advance(14_999);
      expect((await client.getTask(taskId)).status).toBe("processing");
      clock.advance(1);
      expect((await client.getTask(taskId)).status).toBe("completed");
    });
  });

  it("reads --latency pairs, comma-separated or repeated", () => {
    expect(simOptionsOf(flags(["image=15s"])).latencySeconds).toEqual({ image: 15 });
    expect(simOptionsOf(flags(["image=15s,video=2m", "image-b=500ms"])).latencySeconds).toEqual({
      image: 15,
      video: 120,
      "image-b": 0.5,
    });
    expect(simOptionsOf(flags([])).latencySeconds).toEqual({});
  });

  it("refuses an unknown lane or a bad duration with a usage error naming the flag", () => {
    expect(() => simOptionsOf(flags(["imgae=15s"]))).toThrow(
      /--latency names a lane .* got "imgae" \(did you mean "image"\?\)/,
    );
    expect(() => simOptionsOf(flags(["text=1s"]))).toThrow(/--latency names a lane/);
    expect(() => simOptionsOf(flags(["image=fast"]))).toThrow(
      /--latency image must be a duration .* got "fast"/,
    );
    expect(() => simOptionsOf(flags(["image"]))).toThrow(/--latency must be LANE=DURATION/);
  });
});
