import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";

/** A Data URI bound at run time is held to the field's rules before it is sent. */

describe("bound Data URIs", () => {
  it("an upstream picture bound as a Data URI that breaks the field's ratio is refused before it is sent; one that fits is sent", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "bound.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - id: stills
    model: acme-image-2
    prompt: a mug on a table
    resolution: 2k
    matrix: { size: ["16:9", "3:1"] }
  - id: clips
    model: acme-1.0
    from: stills
    prompt: the mug turns
    first_frame_image: "{{input.file}}"
`,
      );
      const run = await scope.gwrun(["run", manifest]).done;
      const tasks = await scope.tasks();
      const clips = tasks.filter((task) => task.job_id === "clips");
      expect(clips.map((task) => task.state).sort()).toEqual(["done", "failed"]);
      const refused = clips.find((task) => task.state === "failed");
      expect(refused?.reason).toBe(
        "first_frame_image: the image bound from stills-e2, data:image/png;base64,…: is 3072×1024 px (width/height 3); it must be within 0.4 to 2.5",
      );
      // Two stills and one clip reached the gateway: the refused clip was never sent.
      expect(scope.sim.counters().submits.accepted).toBe(3);
      expect(run.code).not.toBe(0);
    });
  });
});
