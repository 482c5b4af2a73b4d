import { describe, expect, it } from "vitest";
import { taskKey } from "../../../src/plan/identity.js";
import { checkInline } from "../../helpers/manifest.js";

const endpoint = "/v1/images/generations";
const body = {
  model: "acme-image-2",
  prompt: "a mug",
  size: "16:9",
  image_urls: ["https://e.com/a.png"],
};

describe("task identity", () => {
  it("does not depend on key order", () => {
    const reordered = {
      image_urls: ["https://e.com/a.png"],
      size: "16:9",
      prompt: "a mug",
      model: "acme-image-2",
    };
    expect(taskKey({ endpoint, body: reordered, repeatIndex: 0 })).toBe(
      taskKey({ endpoint, body, repeatIndex: 0 }),
    );
  });

  it("changes with any change of the request, the endpoint or the repeat index", () => {
    const base = taskKey({ endpoint, body, repeatIndex: 0 });
    const variants = [
      taskKey({ endpoint, body, repeatIndex: 1 }),
      taskKey({ endpoint, body: { ...body, size: "9:16" }, repeatIndex: 0 }),
      taskKey({ endpoint, body: { ...body, image_urls: ["https://e.com/b.png"] }, repeatIndex: 0 }),
      taskKey({ endpoint, body: { ...body, n: 1 }, repeatIndex: 0 }),
      taskKey({ endpoint: "/v1/images/edits", body, repeatIndex: 0 }),
      taskKey({ endpoint, body, repeatIndex: 0, tick: "2026-11-22T06:00" }),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("is the same for the same request written in different YAML styles", async () => {
    const block = await checkInline(`
version: 1
jobs:
  - id: hero
    model: acme-image-2
    prompt: "a mug"
    size: "16:9"
    repeat: 2
`);
    const flow = await checkInline(`
version: 1
name: other-name
jobs: [{ repeat: 2, size: '16:9', prompt: a mug, model: acme-image-2, id: renamed }]
`);
    const keys = (checked: typeof block) =>
      checked.jobs.flatMap(({ endpoint: path, body: b, job }) =>
        Array.from({ length: job.spec.repeat }, (_, repeatIndex) =>
          taskKey({ endpoint: path, body: b, repeatIndex }),
        ),
      );
    expect(keys(block)).toHaveLength(2);
    expect(keys(flow)).toEqual(keys(block));
  });
});
