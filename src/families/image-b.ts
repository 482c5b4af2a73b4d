import * as z from "zod";
import {
  arrayAt,
  booleanAt,
  has,
  imageRef,
  int,
  model,
  modelField,
  num,
  numberAt,
  object,
  oneOf,
  parsePixels,
  type Report,
  recordAt,
  request,
  stringAt,
  text,
} from "./common.js";
import type { Family, PixelSize, RequestBody } from "./types.js";

/**
 * Image family B: `<brand>2.7-image-pro` and `<brand>2.7-image`; text-to-image, editing with
 * `image_urls` (optionally with boxes) and sequential image sets.
 */

const PRO = model("<brand>2.7-image-pro");
const STANDARD = model("<brand>2.7-image");
const MODELS = [PRO, STANDARD];

const TIERS = ["1K", "2K", "4K"] as const;
const RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"] as const;
type Tier = (typeof TIERS)[number];
const DEFAULT_TIER: Tier = "2K";
export type ImageBMode = "text-to-image" | "edit" | "sequential";

const MB = 1024 * 1024;
// The spec types hex as a string; a colour is six (or three) hex digits, with or without "#".
const HEX = /^#?([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})$/;
const PERCENT = /^(\d{1,3})(?:\.(\d{1,2}))?%$/;

const isPro = (body: RequestBody) => PRO.pattern.test(stringAt(body, "model") ?? "");
const isStandard = (body: RequestBody) => STANDARD.pattern.test(stringAt(body, "model") ?? "");

/** Sequential when `enable_sequential` is true; otherwise edit when `image_urls` has images. */
export function imageBMode(body: RequestBody): ImageBMode {
  if (booleanAt(body, "enable_sequential") === true) return "sequential";
  return (arrayAt(body, "image_urls")?.length ?? 0) > 0 ? "edit" : "text-to-image";
}

/** Explicit pixels in `size`, written `<w>x<h>` or `<w>*<h>`. */
function sizePixels(body: RequestBody): PixelSize | undefined {
  const size = stringAt(body, "size");
  return size === undefined ? undefined : parsePixels(size, "x*");
}

export interface ImageBTier {
  /** The tier asked for (size keyword, else resolution, else the default 2K); null for pixels. */
  tier: Tier | null;
  /** Highest tier the model and mode allow. */
  maxTier: Tier;
  /** Total pixel range of the model and mode (the spec's tier table), inclusive. */
  minPixels: number;
  maxPixels: number;
}

/** The tier a request asks for and the pixel range its model and mode allow. */
export function imageBTier(body: RequestBody): ImageBTier {
  const size = stringAt(body, "size");
  const resolution = stringAt(body, "resolution");
  const asTier = (value: string | undefined) =>
    TIERS.includes(value as Tier) ? (value as Tier) : undefined;
  const tier =
    size !== undefined && sizePixels(body) !== undefined
      ? null
      : (asTier(size) ?? asTier(resolution) ?? DEFAULT_TIER);
  const fourK = isPro(body) && imageBMode(body) === "text-to-image";
  return {
    tier,
    maxTier: fourK ? "4K" : "2K",
    minPixels: 768 * 768,
    maxPixels: fourK ? 4096 * 4096 : 2048 * 2048,
  };
}

/** Whether an image of `size` lies within the pixel range of the request's model and mode. */
export function imageBWithinRange(body: RequestBody, size: PixelSize): boolean {
  const { minPixels, maxPixels } = imageBTier(body);
  const pixels = size.width * size.height;
  return pixels >= minPixels && pixels <= maxPixels;
}

/** "23.51%" as hundredths of a percent (2351); undefined when malformed. */
function hundredths(value: unknown): number | undefined {
  const match = typeof value === "string" ? PERCENT.exec(value) : null;
  if (match === null) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

const box = z.array(num(0)).length(4);

const paletteItem = object({
  hex: z
    .string()
    .refine((value) => HEX.test(value), {
      message: "must be a hex colour such as #1A2B3C",
      params: { rule: "format" },
    })
    .meta({ pattern: HEX.source }),
  ratio: z
    .string()
    .refine((value) => hundredths(value) !== undefined, {
      message: 'must be a percentage with up to two decimals, e.g. "23.51%"',
      params: { rule: "format" },
    })
    .meta({ pattern: PERCENT.source }),
});

function checkTier(body: RequestBody, report: Report): void {
  const { maxTier, minPixels, maxPixels } = imageBTier(body);
  if (maxTier !== "4K") {
    const why = isStandard(body)
      ? { rule: "model", text: "the standard model goes up to 2K" }
      : { rule: "tier", text: `the pro model is limited to 2K in ${imageBMode(body)} mode` };
    for (const field of ["size", "resolution"]) {
      if (stringAt(body, field) === "4K") {
        report([field], why.rule, `${field} "4K" is not available: ${why.text}; use "1K" or "2K"`);
      }
    }
  }
  const pixels = sizePixels(body);
  if (pixels !== undefined) {
    const total = pixels.width * pixels.height;
    if (total < minPixels || total > maxPixels) {
      const max = Math.sqrt(maxPixels);
      report(
        ["size"],
        "range",
        `size ${pixels.width}x${pixels.height} must have between 768x768 and ${max}x${max} pixels in total for this model and mode`,
      );
    }
  }
}

function checkBoxes(body: RequestBody, report: Report): void {
  const boxes = arrayAt(body, "bbox_list");
  if (boxes === undefined) return;
  const images = arrayAt(body, "image_urls") ?? [];
  if (boxes.length > 0 && !has(body, "image_urls")) {
    report(["bbox_list"], "only-with", "bbox_list marks regions of image_urls; add image_urls");
  } else if (boxes.length !== images.length) {
    report(
      ["bbox_list"],
      "count",
      `bbox_list must have one entry per image in image_urls (${images.length}), got ${boxes.length}; use [] for an image without a box`,
    );
  }
  boxes.forEach((perImage, i) => {
    if (!Array.isArray(perImage)) return;
    perImage.forEach((corners, j) => {
      if (!Array.isArray(corners) || !corners.every((c) => typeof c === "number")) return;
      const [x1, y1, x2, y2] = corners as number[];
      if (x1 === undefined || y1 === undefined || x2 === undefined || y2 === undefined) return;
      if (x1 >= x2 || y1 >= y2) {
        report(
          ["bbox_list", i, j],
          "bbox",
          "a box is [x1, y1, x2, y2] with x1 < x2 and y1 < y2 (pixels, origin top left)",
        );
      }
    });
  });
}

function checkPalette(body: RequestBody, report: Report): void {
  const palette = arrayAt(body, "color_palette");
  if (palette === undefined) return;
  if (booleanAt(body, "enable_sequential") === true) {
    report(
      ["color_palette"],
      "only-with",
      "color_palette has no effect in sequential mode; remove it or set enable_sequential to false",
      "warning",
    );
  }
  const parts = palette.map((item) => hundredths(recordAt(item)?.ratio));
  if (parts.length === 0 || parts.some((part) => part === undefined)) return;
  const sum = (parts as number[]).reduce((a, b) => a + b, 0);
  if (sum !== 10000) {
    report(
      ["color_palette"],
      "palette-sum",
      `the ratio values of color_palette must add up to 100.00%, got ${(sum / 100).toFixed(2)}%`,
    );
  }
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: text(5000).optional(),
    image_urls: z
      .array(imageRef({ dataUri: true }))
      .max(9)
      .optional(),
    n: int(1, 12).optional(),
    // Checked with the other rules, which know the model and mode.
    size: z
      .string()
      .meta({
        description: `a tier (${TIERS.join(", ")}), a ratio (${RATIOS.join(", ")}) or pixels <w>x<h> / <w>*<h>`,
      })
      .optional(),
    resolution: oneOf(TIERS).meta({ default: DEFAULT_TIER }).optional(),
    negative_prompt: z.string().optional(),
    watermark: z.boolean().optional(),
    seed: int(0, 2147483647).optional(),
    // No effect in sequential mode or with input images; not an error there.
    thinking_mode: z.boolean().optional(),
    enable_sequential: z.boolean().optional(),
    bbox_list: z.array(z.array(box).max(2)).optional(),
    color_palette: z.array(paletteItem).min(3).max(10).optional(),
  },
  (body, report) => {
    if (!has(body, "prompt") && (arrayAt(body, "image_urls")?.length ?? 0) === 0) {
      report(["prompt"], "required", "prompt is required when image_urls is absent");
    }
    const n = numberAt(body, "n");
    if (n !== undefined && n > 4 && booleanAt(body, "enable_sequential") !== true) {
      report(["n"], "range", `n must be 1 to 4, or 1 to 12 with enable_sequential true; got ${n}`);
    }
    const size = stringAt(body, "size");
    if (
      size !== undefined &&
      !TIERS.includes(size as Tier) &&
      !RATIOS.includes(size as (typeof RATIOS)[number]) &&
      parsePixels(size, "x*") === undefined
    ) {
      report(
        ["size"],
        "size",
        `must be a tier (${TIERS.join(", ")}), a ratio (${RATIOS.join(", ")}) or pixels <w>x<h> / <w>*<h>, got "${size}"`,
      );
    }
    checkTier(body, report);
    checkBoxes(body, report);
    checkPalette(body, report);
  },
);

export const imageB: Family = {
  id: "image-b",
  title: "image family B",
  lane: "image",
  endpoint: "/v1/images/generations",
  models: MODELS,
  schema,
  imageInputs: [
    {
      path: ["image_urls", "*"],
      dataUri: true,
      formats: ["jpeg", "png", "webp", "bmp"],
      maxBytes: 20 * MB,
      minSide: 240,
      maxSide: 8000,
      minRatio: 1 / 8,
      maxRatio: 8,
    },
  ],
  mode: imageBMode,
  expectedOutputs(body) {
    const n = numberAt(body, "n") ?? 1;
    const mode = imageBMode(body);
    // Tiers and ratios name no exact pixels; in edit mode the output ratio follows the last input.
    const pixels = mode === "edit" ? undefined : sizePixels(body);
    return {
      kind: "image",
      count: n,
      exact: mode !== "sequential",
      sizes: pixels === undefined ? null : [pixels],
    };
  },
  // Pre-charged by n: 0.50 per image (pro), 0.20 (standard).
  estimateCost(body) {
    const n = numberAt(body, "n") ?? 1;
    const price = isPro(body) ? 0.5 : isStandard(body) ? 0.2 : undefined;
    return price === undefined ? null : Math.round(price * n * 100) / 100;
  },
};
