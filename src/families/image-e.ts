import * as z from "zod";
import { didYouMean } from "../core/suggest.js";
import { describe } from "../core/zod-issues.js";
import {
  BRAND,
  booleanAt,
  imageRef,
  int,
  model,
  modelField,
  numberAt,
  oneOf,
  type Report,
  stringAt,
} from "./common.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Image family E: `<brand>-3.1-flash-image-preview` and its `-official` variant.
 *
 * The text search flag is named `<brand>_search`, a vendor word the spec leaves out (it need not
 * be the model's), so the request object cannot be a fixed strict shape: it is a loose object
 * whose unknown keys are reported here, accepting one `<word>_search` boolean.
 *
 * The image-search flag (which requires the text search flag to be true) is not named by the
 * spec; it is not accepted under any guessed name, so sending it is an unknown-field error.
 */

const STANDARD = model("<brand>-3.1-flash-image-preview");
const OFFICIAL = model("<brand>-3.1-flash-image-preview-official");
const MODELS = [STANDARD, OFFICIAL];

const SIZES = [
  "1:1",
  "3:2",
  "2:3",
  "4:3",
  "3:4",
  "16:9",
  "9:16",
  "5:4",
  "4:5",
  "21:9",
  "1:4",
  "4:1",
  "1:8",
  "8:1",
] as const;
const MB = 1024 * 1024;

const BRAND_OF_MODEL = new RegExp(`^(${BRAND})-3\\.1-flash-image-preview(?:-official)?$`);
const SEARCH_KEY = new RegExp(`^${BRAND}_search$`);

/** The vendor word of the model id; undefined when the model is not one of the family's ids. */
export function imageEBrand(body: RequestBody): string | undefined {
  return BRAND_OF_MODEL.exec(stringAt(body, "model") ?? "")?.[1];
}

const shape = {
  model: modelField(MODELS),
  prompt: z.string(),
  // Default of size: not shown in the spec.
  size: oneOf(SIZES).optional(),
  resolution: oneOf(["0.5K", "1K", "2K", "4K"]).optional(),
  n: int(1, 4).optional(),
  official_fallback: z.boolean().optional(),
  image_urls: z
    .array(imageRef({ dataUri: true }))
    .max(14)
    .optional(),
};
const KNOWN = Object.keys(shape);

function checkKeys(body: RequestBody, report: Report): void {
  const brand = imageEBrand(body);
  const candidates = brand === undefined ? KNOWN : [...KNOWN, `${brand}_search`];
  let searchFlag: string | undefined;
  for (const key of Object.keys(body)) {
    if (KNOWN.includes(key) || body[key] === undefined) continue;
    if (SEARCH_KEY.test(key)) {
      if (typeof body[key] !== "boolean") {
        report([key], "type", `must be a boolean, got ${describe(body[key])}`);
      }
      if (searchFlag !== undefined) {
        report(
          [key],
          "mutually-exclusive",
          `send one text search flag, not both ${searchFlag} and ${key}`,
        );
      }
      searchFlag = key;
      continue;
    }
    report([key], "unknown-field", `unknown field${didYouMean(key, candidates)}`);
  }
}

function rules(body: RequestBody, report: Report): void {
  checkKeys(body, report);
  if (
    OFFICIAL.pattern.test(stringAt(body, "model") ?? "") &&
    booleanAt(body, "official_fallback") === true
  ) {
    report(
      ["official_fallback"],
      "model",
      "official_fallback must not be used with the -official model; remove it or use the standard model",
    );
  }
}

const schema = z.looseObject(shape).superRefine(
  (body, ctx) => {
    if (body === null || typeof body !== "object" || Array.isArray(body)) return;
    rules(body as RequestBody, (path, rule, message) =>
      ctx.addIssue({ code: "custom", path: [...path], message, params: { rule } }),
    );
  },
  { when: () => true },
);

export const imageE: Family = {
  id: "image-e",
  title: "image family E",
  lane: "image",
  endpoint: "/v1/images/generations",
  models: MODELS,
  schema,
  imageInputs: [
    {
      path: ["image_urls", "*"],
      dataUri: true,
      formats: ["jpeg", "png", "webp"],
      maxBytes: 10 * MB,
    },
  ],
  // Resolutions are approximate ("about 1024 px"): no exact pixel sizes to promise.
  expectedOutputs: (body) => ({
    kind: "image",
    count: numberAt(body, "n") ?? 1,
    exact: true,
    sizes: null,
  }),
  // 4K costs more than 1K, but the spec states no amounts.
  estimateCost: () => null,
};
