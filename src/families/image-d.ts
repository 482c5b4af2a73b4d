import * as z from "zod";
import { BRAND, int, modelField, numberAt, oneOf, request } from "./common.js";
import type { Family, ModelPattern } from "./types.js";

/** Image family D: `<brand>-imagine-1.0-<suffix>`, text-to-image. */

// Any suffix except `edit-...`, which names the edits endpoint's models (image-edits).
const MODEL: ModelPattern = {
  pattern: new RegExp(`^${BRAND}-imagine-1\\.0-(?!edit-)[\\w.-]+$`),
  // The suffix is left open by the spec; the example spells it as a word that matches.
  label: "<brand>-imagine-1.0-<suffix>",
  example: "acme-imagine-1.0-suffix",
};
const MODELS = [MODEL];

const schema = request({
  model: modelField(MODELS),
  prompt: z.string(),
  size: oneOf(["1:1", "16:9", "9:16", "3:2", "2:3"]).optional(),
  n: int(1, 10).optional(),
});

export const imageD: Family = {
  id: "image-d",
  title: "image family D",
  lane: "image",
  endpoint: "/v1/images/generations",
  models: MODELS,
  schema,
  imageInputs: [],
  // The spec names ratios only, no pixel sizes.
  expectedOutputs: (body) => ({
    kind: "image",
    count: numberAt(body, "n") ?? 1,
    exact: true,
    sizes: null,
  }),
  estimateCost: () => null,
};
