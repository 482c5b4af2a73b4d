import * as z from "zod";
import { didYouMean } from "../core/suggest.js";
import {
  arrayAt,
  has,
  imageRef,
  int,
  model,
  modelField,
  numberAt,
  object,
  oneOf,
  recordAt,
  request,
  stringAt,
} from "./common.js";
import type { Family, PixelSize, RequestBody } from "./types.js";

/** Image family C: `<brand>-seedance-4-5` (four aliases), text-to-image or with references. */

const MODELS = [
  model("<brand>-seedance-4-5"),
  model("<brand>-seedance-4.5"),
  model("<brand>-Seedance-4-5"),
  model("<brand>-Seedance-4.5"),
];

const SIZES = ["1:1", "4:3", "3:4", "16:9", "9:16", "3:2", "2:3", "21:9", "9:21", "auto"] as const;
const RESOLUTIONS = ["2K", "4K"] as const;
const MAX_IMAGES = 15;
const MB = 1024 * 1024;

// The only pixel sizes the spec states (reference sizes), by size and resolution.
const REFERENCE_PIXELS: Record<string, Record<string, PixelSize>> = {
  "1:1": { "2K": { width: 2048, height: 2048 }, "4K": { width: 4096, height: 4096 } },
  "16:9": { "2K": { width: 2560, height: 1440 }, "4K": { width: 5404, height: 3040 } },
};

/** `resolution`: an enum whose message says plainly that 1K is not offered. */
const resolution = z
  .string()
  .superRefine((value, ctx) => {
    if ((RESOLUTIONS as readonly string[]).includes(value)) return;
    ctx.addIssue({
      code: "custom",
      message: /^1k$/i.test(value)
        ? `1K is not supported by this model; use "2K" or "4K"`
        : `must be one of "2K", "4K", got ${JSON.stringify(value)}${didYouMean(value, RESOLUTIONS)}`,
      params: { rule: "enum" },
    });
  })
  .meta({ enum: [...RESOLUTIONS] });

const referenceCount = (body: RequestBody) => arrayAt(body, "image_urls")?.length ?? 0;

/** Several images come from `auto`, which `n` above 1 switches on. */
function sequentialAuto(body: RequestBody): boolean {
  return stringAt(body, "sequential_image_generation") === "auto" || (numberAt(body, "n") ?? 1) > 1;
}

function maxImages(body: RequestBody): number | undefined {
  const options = recordAt(body.sequential_image_generation_options);
  const value = options?.max_images;
  return typeof value === "number" ? value : undefined;
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: z.string(),
    size: oneOf(SIZES).optional(),
    resolution: resolution.optional(),
    n: int(1, MAX_IMAGES).optional(),
    image_urls: z
      .array(imageRef({ dataUri: true }))
      .max(10)
      .optional(),
    optimize_prompt_options: object({ mode: oneOf(["standard", "fast"]).optional() }).optional(),
    sequential_image_generation: oneOf(["disabled", "auto"]).optional(),
    sequential_image_generation_options: object({ max_images: int(1, MAX_IMAGES) }).optional(),
    watermark: z.boolean().optional(),
  },
  (body, report) => {
    const references = referenceCount(body);
    if (stringAt(body, "size") === "auto" && references === 0) {
      report(
        ["size"],
        "only-with",
        'size "auto" follows the reference image ratio and needs image_urls; pick a ratio or add image_urls',
      );
    }
    if (stringAt(body, "sequential_image_generation") === "auto" && references === 0) {
      report(
        ["sequential_image_generation"],
        "only-with",
        'sequential_image_generation "auto" needs at least one image in image_urls',
      );
    }
    const n = numberAt(body, "n");
    if (n !== undefined && n > 1 && references === 0) {
      report(
        ["n"],
        "only-with",
        "n above 1 needs image_urls: a text-only request yields one image",
      );
    }
    if (n !== undefined && references + n > MAX_IMAGES) {
      report(
        ["n"],
        "count",
        `image_urls (${references}) plus n (${n}) must be at most ${MAX_IMAGES}`,
      );
    }
    if (has(body, "sequential_image_generation_options")) {
      if (!sequentialAuto(body)) {
        report(
          ["sequential_image_generation_options"],
          "only-with",
          'sequential_image_generation_options applies only with sequential_image_generation "auto"',
        );
      }
      const max = maxImages(body);
      if (max !== undefined && references + max > MAX_IMAGES) {
        report(
          ["sequential_image_generation_options", "max_images"],
          "count",
          `image_urls (${references}) plus max_images (${max}) must be at most ${MAX_IMAGES}`,
        );
      }
    }
  },
);

export const imageC: Family = {
  id: "image-c",
  title: "image family C",
  lane: "image",
  endpoint: "/v1/images/generations",
  models: MODELS,
  schema,
  imageInputs: [
    {
      path: ["image_urls", "*"],
      dataUri: true,
      formats: ["jpeg", "png"],
      maxBytes: 10 * MB,
      // "each side above 14 px"
      minSide: 15,
      minRatio: 1 / 3,
      maxRatio: 3,
      maxPixels: 6000 * 6000,
    },
  ],
  expectedOutputs(body) {
    const size = stringAt(body, "size") ?? "1:1";
    const tier = stringAt(body, "resolution") ?? "2K";
    const pixels = REFERENCE_PIXELS[size]?.[tier];
    const sizes = pixels === undefined ? null : [pixels];
    const n = numberAt(body, "n") ?? 1;
    if (!sequentialAuto(body)) return { kind: "image", count: n, exact: true, sizes };
    // With "auto" the model decides how many, up to max_images (else n, else the 15-image cap).
    const upper = maxImages(body) ?? (n > 1 ? n : MAX_IMAGES - referenceCount(body));
    return { kind: "image", count: Math.max(1, upper), exact: false, sizes };
  },
  // Pre-charged by the number of images; the spec states no amount.
  estimateCost: () => null,
};
