import { describe, expect, it } from "vitest";
import { familyFor } from "../../../src/families/index.js";
import { planOutputs } from "../../../src/sim/outputs.js";

const NO_FAULTS = { wrongSize: false, shortClip: false };

describe("the simulator's outputs", () => {
  it("a request's seed draws its own picture, the same one every time it is asked", () => {
    const family = familyFor("acme2.7-image-pro", undefined);
    if (family === undefined) throw new Error("no family for acme2.7-image-pro");
    const plan = (seed?: number) =>
      planOutputs(family, { model: "acme2.7-image-pro", prompt: "a mug", seed }, 0.5, NO_FAULTS, 0)
        ?.seed;
    expect(plan(7)).toBe(plan(7));
    expect(plan(7)).not.toBe(plan(8));
    expect(plan(7)).not.toBe(plan());
    expect(plan()).toBe(plan(undefined));
  });
});
