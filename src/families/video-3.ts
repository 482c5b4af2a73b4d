import * as z from "zod";
import {
  arrayAt,
  has,
  imageRef,
  int,
  mediaUrl,
  model,
  modelField,
  num,
  numberAt,
  object,
  oneClip,
  oneOf,
  type Report,
  recordAt,
  request,
  stringAt,
  videoUrl,
} from "./common.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Video family 3: `<brand>-v4-fast` and `<brand>-v4-std`; T2V, I2V from frames, or Omni from
 * tagged reference images and videos. Every violation is a 422 at the gateway (not billed).
 */

const MODELS = [model("<brand>-v4-fast"), model("<brand>-v4-std")];

export type Video3Mode = "T2V" | "I2V" | "Omni";

const I2V_FIELDS = ["first_frame_image", "end_frame_image", "mid_frame_images"] as const;
const OMNI_FIELDS = ["ref_images", "ref_videos"] as const;
const TAGGED_FIELDS = ["mid_frame_images", "ref_images", "ref_videos"] as const;
const FORMATS = ["jpeg", "png", "gif", "bmp"] as const;
const DEFAULT_DURATION = 5;
const MAX_TOKENS = 1280;

const tag = z
  .string()
  .refine((value) => value.startsWith("@"), {
    message: 'must start with "@", e.g. "@hero", and be written into the prompt',
    params: { rule: "format" },
  })
  .meta({ pattern: "^@" });

const midFrame = object({
  tag,
  image_url: imageRef({ dataUri: false }),
  time_stamp: num(),
});

// Count rules that depend on the type (grid: exactly 1 item of 1 image) are in the rules.
const refImage = object({
  tag,
  type: oneOf(["image", "grid"]),
  image_urls: z
    .array(imageRef({ dataUri: false }))
    .min(1)
    .max(5),
  // Audio length (at most 15 s) is unknown before the gateway fetches it.
  audio_url: mediaUrl().optional(),
});

const refVideo = object({
  tag,
  type: oneOf(["reference", "extend"]),
  // MP4 or MOV of at most 15 s (10 s for reference): unknown before the gateway fetches it.
  video_url: videoUrl(),
});

/** The mode by the fields present; a body with both I2V and Omni fields is rejected anyway. */
export function video3Mode(body: RequestBody): Video3Mode {
  if (OMNI_FIELDS.some((field) => has(body, field))) return "Omni";
  if (I2V_FIELDS.some((field) => has(body, field))) return "I2V";
  return "T2V";
}

function checkTags(body: RequestBody, report: Report): void {
  const prompt = stringAt(body, "prompt");
  if (prompt === undefined) return;
  for (const field of TAGGED_FIELDS) {
    arrayAt(body, field)?.forEach((item, index) => {
      const value = recordAt(item)?.tag;
      if (typeof value !== "string" || !value.startsWith("@") || prompt.includes(value)) return;
      report(
        [field, index, "tag"],
        "tag-in-prompt",
        `the prompt must mention the tag "${value}" of ${field}[${index}]`,
      );
    });
  }
  // Tokens cannot be counted without the model's tokenizer; whitespace-separated words are a
  // lower bound (no token spans two words), so only a prompt that is surely too long is flagged.
  const words = prompt.split(/\s+/).filter((word) => word !== "").length;
  if (words > MAX_TOKENS) {
    report(["prompt"], "length", `must be at most ${MAX_TOKENS} tokens; it has ${words} words`);
  }
}

function checkRefImages(body: RequestBody, report: Report): void {
  const items = arrayAt(body, "ref_images")?.map(recordAt);
  if (items === undefined) return;
  const types = new Set(items.map((item) => item?.type).filter((t) => typeof t === "string"));
  if (types.size > 1) {
    report(
      ["ref_images"],
      "same-type",
      'all ref_images items must have the same type ("image" or "grid")',
    );
  }
  // The schema bounds all types to 1..3 items of 1..5 images; grid narrows both to exactly 1.
  if (types.has("grid") && items.length > 1 && items.length <= 3) {
    report(["ref_images"], "count", `type "grid" takes exactly 1 item, got ${items.length}`);
  }
  items.forEach((item, index) => {
    const images = Array.isArray(item?.image_urls) ? item.image_urls : undefined;
    if (item?.type === "grid" && images !== undefined && images.length > 1 && images.length <= 5) {
      report(
        ["ref_images", index, "image_urls"],
        "count",
        `a "grid" item takes exactly 1 image, got ${images.length}`,
      );
    }
    if (item?.audio_url !== undefined && item.type !== "image") {
      report(
        ["ref_images", index, "audio_url"],
        "only-with",
        'audio_url is allowed only on ref_images items of type "image"',
      );
    }
  });
}

function checkModes(body: RequestBody, report: Report): void {
  const i2v = I2V_FIELDS.find((field) => has(body, field));
  const omni = OMNI_FIELDS.find((field) => has(body, field));
  if (i2v !== undefined && omni !== undefined) {
    report(
      [omni],
      "mode-conflict",
      `I2V fields (${I2V_FIELDS.join(", ")}) and Omni fields (${OMNI_FIELDS.join(", ")}) cannot be combined; found ${i2v} and ${omni}`,
    );
  }
  const extend = arrayAt(body, "ref_videos")?.findIndex((v) => recordAt(v)?.type === "extend");
  if (extend !== undefined && extend !== -1 && has(body, "ref_images")) {
    report(
      ["ref_videos", extend, "type"],
      "mutually-exclusive",
      'a ref_videos item of type "extend" cannot be combined with ref_images; use "reference" or drop ref_images',
    );
  }
  const duration = numberAt(body, "duration") ?? DEFAULT_DURATION;
  arrayAt(body, "mid_frame_images")?.forEach((item, index) => {
    const at = recordAt(item)?.time_stamp;
    if (typeof at !== "number" || at === -1 || (at > 0 && at < duration)) return;
    report(
      ["mid_frame_images", index, "time_stamp"],
      "range",
      `time_stamp must be -1 or strictly between 0 and the duration (${duration}), got ${at}`,
    );
  });
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: z.string(),
    // With a "reference" video its length overrides duration; sending duration is not an error.
    duration: int(3, 15).meta({ default: DEFAULT_DURATION }).optional(),
    resolution: oneOf(["480p", "720p", "1080p"]).optional(),
    // Ignored in I2V and in Omni with ref_videos, still validated when sent.
    aspect_ratio: oneOf(["16:9", "4:3", "1:1", "9:16", "3:4"]).optional(),
    prompt_optimizer: z.boolean().optional(),
    first_frame_image: imageRef({ dataUri: false }).optional(),
    end_frame_image: imageRef({ dataUri: false }).optional(),
    mid_frame_images: z.array(midFrame).max(6).optional(),
    ref_images: z.array(refImage).min(1).max(3).optional(),
    ref_videos: z.array(refVideo).max(1).optional(),
  },
  (body, report) => {
    checkModes(body, report);
    checkRefImages(body, report);
    checkTags(body, report);
  },
);

export const video3: Family = {
  id: "video-3",
  title: "video family 3",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Only the first and last frames have stated formats; no sizes or byte limits are stated.
  imageInputs: [
    { path: ["first_frame_image"], dataUri: false, formats: FORMATS },
    { path: ["end_frame_image"], dataUri: false, formats: FORMATS },
    { path: ["mid_frame_images", "*", "image_url"], dataUri: false },
    { path: ["ref_images", "*", "image_urls", "*"], dataUri: false },
  ],
  mode: video3Mode,
  expectedOutputs(body) {
    const reference = arrayAt(body, "ref_videos")?.some((v) => recordAt(v)?.type === "reference");
    return oneClip({
      // A "reference" video's own length (at most 10 s) replaces the requested duration.
      durationSeconds: reference ? null : (numberAt(body, "duration") ?? DEFAULT_DURATION),
      // Generated clips are silent (audio and video output together is unsupported), but a
      // "reference" video carries its own audio by default.
      audio: reference ? null : false,
    });
  },
  // Billing grows with resolution and ref_videos, but the spec states no amounts.
  estimateCost: () => null,
};
