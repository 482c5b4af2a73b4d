import * as z from "zod";
import {
  arrayAt,
  has,
  imageRef,
  int,
  model,
  modelField,
  numberAt,
  oneClip,
  oneOf,
  type Report,
  request,
  stringAt,
  text,
  videoUrl,
} from "./common.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Video family 2: `<brand>-1.0`, one entry routed by the media fields sent: EDIT (`video_url`),
 * I2V (`first_frame_image`), R2V (`image_urls`) or T2V (prompt only).
 */

const MODELS = [model("<brand>-1.0")];

export type Video2Mode = "EDIT" | "I2V" | "R2V" | "T2V";

const MB = 1024 * 1024;
// The spec's JPEG, JPG, PNG, BMP, WEBP (JPG is JPEG); checked on Data URIs and local files.
const FORMATS = ["jpeg", "png", "bmp", "webp"] as const;
const DEFAULT_DURATION = 5;

/**
 * "No special tokens": read as the control tokens of language-model tokenizers, written
 * `<|...|>` (e.g. `<|endoftext|>`, `<|im_start|>`); ordinary punctuation and brackets are text.
 */
const SPECIAL_TOKEN = /<\|[^|<>\s]*\|>/;

/** The mode the gateway routes to, by the highest-priority media field present. */
export function video2Mode(body: RequestBody): Video2Mode {
  if (has(body, "video_url")) return "EDIT";
  if (has(body, "first_frame_image")) return "I2V";
  if (has(body, "image_urls")) return "R2V";
  return "T2V";
}

function checkMedia(body: RequestBody, report: Report): void {
  // Excluded pairs, reported at the later field of each; video_url with image_urls is allowed.
  const pairs = [
    ["first_frame_image", "image_urls"],
    ["first_frame_image", "video_url"],
  ] as const;
  for (const [first, second] of pairs) {
    if (has(body, first) && has(body, second)) {
      report(
        [second],
        "mixed_media_not_allowed",
        `${first} and ${second} cannot be sent together; first_frame_image, image_urls and video_url exclude each other, except video_url with image_urls`,
      );
    }
  }
  const images = arrayAt(body, "image_urls");
  const mode = video2Mode(body);
  if (images !== undefined && mode === "R2V" && (images.length < 1 || images.length > 9)) {
    report(["image_urls"], "count", `R2V takes 1 to 9 images in image_urls, got ${images.length}`);
  }
  if (images !== undefined && mode === "EDIT" && images.length > 5) {
    report(
      ["image_urls"],
      "count",
      `EDIT (with video_url) takes 0 to 5 style images in image_urls, got ${images.length}`,
    );
  }
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: text(2500).optional(),
    first_frame_image: imageRef({ dataUri: true }).optional(),
    // Counts depend on the mode (R2V 1 to 9, EDIT 0 to 5): checked in the rules.
    image_urls: z.array(imageRef({ dataUri: true })).optional(),
    // Length, resolution, ratio, container, frame rate and size of the source video are
    // unknown before the gateway fetches it.
    video_url: videoUrl().optional(),
    audio_setting: oneOf(["auto", "origin"]).optional(),
    resolution: oneOf(["720P", "1080P"]).optional(),
    // Ignored in EDIT (the output follows the source), still validated when sent.
    duration: int(3, 15).meta({ default: DEFAULT_DURATION }).optional(),
    // Ignored in I2V and EDIT, still validated when sent.
    size: oneOf(["16:9", "9:16", "1:1", "4:3", "3:4"]).optional(),
    watermark: z.boolean().optional(),
    seed: int(0, 2147483647).optional(),
  },
  (body, report) => {
    checkMedia(body, report);
    const mode = video2Mode(body);
    if (!has(body, "prompt") && mode !== "I2V") {
      report(["prompt"], "required", `prompt is required in ${mode}; only I2V may omit it`);
    }
    const token = SPECIAL_TOKEN.exec(stringAt(body, "prompt") ?? "");
    if (token !== null) {
      report(
        ["prompt"],
        "special-token",
        `remove the special token "${token[0]}": the prompt may not contain control tokens`,
      );
    }
    if (has(body, "audio_setting") && !has(body, "video_url")) {
      report(
        ["audio_setting"],
        "audio_setting_only_for_edit",
        "audio_setting applies only to EDIT: add video_url or remove audio_setting",
      );
    }
  },
);

export const video2: Family = {
  id: "video-2",
  title: "video family 2",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  imageInputs: [
    {
      path: ["first_frame_image"],
      dataUri: true,
      formats: FORMATS,
      minShortSide: 300,
      minRatio: 1 / 2.5,
      maxRatio: 2.5,
      maxBytes: 10 * MB,
    },
    // Short side 720 px is only recommended, so it is not a limit here.
    {
      path: ["image_urls", "*"],
      dataUri: true,
      formats: FORMATS,
      minRatio: 0.4,
      maxRatio: 2.5,
      maxBytes: 10 * MB,
    },
  ],
  mode: video2Mode,
  expectedOutputs(body) {
    const edit = video2Mode(body) === "EDIT";
    return oneClip({
      // EDIT follows the source video (15 s at most), which only the gateway knows.
      durationSeconds: edit ? null : (numberAt(body, "duration") ?? DEFAULT_DURATION),
    });
  },
  // Billed by resolution times seconds; the spec states no amounts.
  estimateCost: () => null,
};
