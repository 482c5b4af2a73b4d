import * as z from "zod";
import {
  booleanAt,
  has,
  imageRef,
  int,
  intOneOf,
  mediaUrl,
  model,
  modelField,
  numberAt,
  oneClip,
  oneOf,
  parsePixels,
  request,
  stringAt,
} from "./common.js";
import type { Family, PixelSize, RequestBody } from "./types.js";

/**
 * Video family 6: `<brand>2.6`; text-to-video without `image_urls`, image-to-video (optionally
 * with an effect template) from exactly one image.
 */

// Anchored, so `<brand>2.7-...` ids never match.
const MODELS = [model("<brand>2.6")];

export type Video6Mode = "T2V" | "I2V";

const RATIOS = ["16:9", "9:16", "1:1", "4:3", "3:4"] as const;
const RESOLUTIONS = ["720p", "1080p"] as const;
type Ratio = (typeof RATIOS)[number];
type Resolution = (typeof RESOLUTIONS)[number];

const DEFAULT_RATIO: Ratio = "16:9";
const DEFAULT_RESOLUTION: Resolution = "720p";
const DEFAULT_DURATION = 5;

/** Effect templates for I2V: common, one person, two persons. */
export const VIDEO6_TEMPLATES = [
  "squish",
  "rotation",
  "poke",
  "inflate",
  "dissolve",
  "carousel",
  "singleheart",
  "flying",
  "rose",
  "hug",
  "frenchkiss",
  "coupleheart",
] as const;

// The spec's output sizes (T2V): aspect_ratio × resolution.
const PIXELS: Record<Ratio, Record<Resolution, string>> = {
  "16:9": { "720p": "1280x720", "1080p": "1920x1080" },
  "9:16": { "720p": "720x1280", "1080p": "1080x1920" },
  "1:1": { "720p": "960x960", "1080p": "1440x1440" },
  "4:3": { "720p": "1088x832", "1080p": "1632x1248" },
  "3:4": { "720p": "832x1088", "1080p": "1248x1632" },
};

/** The output size family 6 promises for an aspect ratio and resolution; null when unknown. */
export function video6Pixels(aspectRatio: string, resolution: string): PixelSize | null {
  const row = Object.hasOwn(PIXELS, aspectRatio) ? PIXELS[aspectRatio as Ratio] : undefined;
  const cell =
    row !== undefined && Object.hasOwn(row, resolution) ? row[resolution as Resolution] : undefined;
  return cell === undefined ? null : (parsePixels(cell) ?? null);
}

/** I2V when `image_urls` is sent, else T2V. */
export function video6Mode(body: RequestBody): Video6Mode {
  return has(body, "image_urls") ? "I2V" : "T2V";
}

// An enum with its own message, so the unsupported 480p is named as such (the JSON schema keeps the enum).
const resolution = z
  .string()
  .superRefine((value, ctx) => {
    if ((RESOLUTIONS as readonly string[]).includes(value)) return;
    ctx.addIssue({
      code: "custom",
      message:
        value.toLowerCase() === "480p"
          ? '480p is not supported by this model; use "720p" or "1080p"'
          : `must be "720p" or "1080p", got ${JSON.stringify(value)}`,
      params: { rule: "enum" },
    });
  })
  .meta({ enum: [...RESOLUTIONS] });

const schema = request(
  {
    model: modelField(MODELS),
    // Ignored with a template; not an error.
    prompt: z.string().optional(),
    image_urls: z
      .array(imageRef({ dataUri: true }))
      .min(1)
      .max(1)
      .optional(),
    negative_prompt: z.string().optional(),
    aspect_ratio: oneOf(RATIOS).meta({ default: DEFAULT_RATIO }).optional(),
    resolution: resolution.meta({ default: DEFAULT_RESOLUTION }).optional(),
    duration: intOneOf([5, 10, 15]).meta({ default: DEFAULT_DURATION }).optional(),
    seed: int().optional(),
    prompt_extend: z.boolean().optional(),
    audio: z.boolean().optional(),
    // Overrides `audio`. Must not exceed the video length, which is unknown before the
    // gateway fetches the audio; a shorter one leaves the rest silent.
    audio_url: mediaUrl().optional(),
    shot_type: oneOf(["single", "multi"]).optional(),
    watermark: z.boolean().optional(),
    // "Only one image" is already guaranteed by image_urls taking exactly one.
    template: oneOf(VIDEO6_TEMPLATES).optional(),
  },
  (body, report) => {
    const mode = video6Mode(body);
    if (mode === "T2V" && !has(body, "prompt")) {
      report(
        ["prompt"],
        "required",
        "prompt is required in text-to-video; add a prompt, or image_urls for image-to-video",
      );
    }
    if (mode === "I2V" && has(body, "aspect_ratio")) {
      report(
        ["aspect_ratio"],
        "only-with",
        "aspect_ratio is not supported in image-to-video (the video follows the image); remove it or remove image_urls",
      );
    }
    if (mode === "T2V" && has(body, "template")) {
      report(
        ["template"],
        "only-with",
        "template is an image-to-video effect: add image_urls with one image, or remove template",
      );
    }
  },
);

export const video6: Family = {
  id: "video-6",
  title: "video family 6",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // URL or Data URI; the spec states no formats, sizes or byte limits.
  imageInputs: [{ path: ["image_urls", "*"], dataUri: true }],
  mode: video6Mode,
  expectedOutputs(body) {
    const size =
      video6Mode(body) === "I2V"
        ? null
        : video6Pixels(
            stringAt(body, "aspect_ratio") ?? DEFAULT_RATIO,
            stringAt(body, "resolution") ?? DEFAULT_RESOLUTION,
          );
    const withAudio = booleanAt(body, "audio") === true || has(body, "audio_url");
    return oneClip({
      // In I2V the aspect follows the image, so the size is unknown.
      sizes: size === null ? null : [size],
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
      audio: withAudio ? true : null,
    });
  },
  // Billed per second by resolution; the spec states no amounts.
  estimateCost: () => null,
};
