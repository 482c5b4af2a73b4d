import * as z from "zod";
import { BRAND, int, isDataUri, modelField, numberAt, publicUrl, request } from "./common.js";
import type { Family, ModelPattern } from "./types.js";

/** POST /v1/images/edits: `<brand>-imagine-1.0-edit-<suffix>` edits the first image of `image_urls`. */

const MODEL: ModelPattern = {
  pattern: new RegExp(`^${BRAND}-imagine-1\\.0-edit-[\\w.-]+$`),
  // The suffix is left open by the spec; the example spells it as a word that matches.
  label: "<brand>-imagine-1.0-edit-<suffix>",
  example: "acme-imagine-1.0-edit-suffix",
};
const MODELS = [MODEL];

const HTTPS = /^https:\/\/[^\s/$.?#][^\s]*$/i;

/** This endpoint takes https:// URLs or Data URIs; plain http:// is refused. */
const editImage = z.string().superRefine((value, ctx) => {
  if (HTTPS.test(value)) {
    publicUrl(value, ctx);
    return;
  }
  if (isDataUri(value)) return;
  const http = /^http:\/\//i.test(value);
  ctx.addIssue({
    code: "custom",
    message: http
      ? "must be an https:// URL (http:// is not accepted) or a Data URI"
      : "must be an https:// URL or a Data URI data:image/<format>;base64,<data>",
    params: { rule: http ? "https-only" : "image-ref" },
  });
});

const schema = request({
  model: modelField(MODELS),
  prompt: z.string(),
  // Only the first image is used as the edit reference; more are not an error.
  image_urls: z.array(editImage).min(1),
  n: int(1, 10).optional(),
});

export const imageEdits: Family = {
  id: "image-edits",
  title: "image edits",
  lane: "image",
  endpoint: "/v1/images/edits",
  models: MODELS,
  schema,
  imageInputs: [{ path: ["image_urls", "*"], dataUri: true, httpsOnly: true }],
  // The spec states no output pixel sizes.
  expectedOutputs: (body) => ({
    kind: "image",
    count: numberAt(body, "n") ?? 1,
    exact: true,
    sizes: null,
  }),
  estimateCost: () => null,
};
