import * as z from "zod";
import {
  arrayAt,
  booleanAt,
  imageRef,
  intOneOf,
  model,
  modelField,
  numberAt,
  oneClip,
  oneOf,
  request,
  stringAt,
  text,
} from "./common.js";
import type { Family } from "./types.js";

/**
 * Video family 7: `<brand>-v2-6`; text-to-video, or from a first frame (one image) or first and
 * last frames (two images, `pro` only). `mode` picks std (720P, silent) or pro (1080P, audio).
 */

const MODELS = [model("<brand>-v2-6")];

const DEFAULT_MODE = "std";
const DEFAULT_DURATION = 5;

const schema = request(
  {
    model: modelField(MODELS),
    prompt: text(2500),
    mode: oneOf(["std", "pro"]).meta({ default: DEFAULT_MODE }).optional(),
    duration: intOneOf([5, 10]).meta({ default: DEFAULT_DURATION }).optional(),
    // May be overridden by the image; not an error with image_urls.
    aspect_ratio: oneOf(["16:9", "9:16", "1:1"]).optional(),
    negative_prompt: z.string().optional(),
    image_urls: z
      .array(imageRef({ dataUri: false }))
      .max(2)
      .optional(),
    audio: z.boolean().optional(),
    watermark: z.boolean().optional(),
  },
  (body, report) => {
    // A malformed mode is reported by the schema; the rules that depend on it are skipped.
    const mode = body.mode === undefined ? DEFAULT_MODE : stringAt(body, "mode");
    const known = mode === "std" || mode === "pro";
    const images = arrayAt(body, "image_urls")?.length ?? 0;
    const audio = booleanAt(body, "audio") === true;
    if (known && images === 2 && mode !== "pro") {
      report(
        ["image_urls"],
        "only-with",
        'two images (first and last frame) need mode "pro"; set mode "pro" or send one image',
      );
    }
    if (known && audio && mode !== "pro") {
      report(
        ["audio"],
        "only-with",
        'audio is only available in mode "pro" (std is silent); set mode "pro" or remove audio',
      );
    }
    if (audio && images === 2) {
      report(
        ["audio"],
        "mutually-exclusive",
        "audio cannot be used with a last frame (a second image in image_urls); remove audio or the second image",
      );
    }
  },
);

export const video7: Family = {
  id: "video-7",
  title: "video family 7",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Public URLs only; the spec states no formats, sizes or byte limits.
  imageInputs: [{ path: ["image_urls", "*"], dataUri: false }],
  expectedOutputs(body) {
    const pro = stringAt(body, "mode") === "pro";
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
      // std is silent only; pro without audio is not stated to be silent.
      audio: pro ? (booleanAt(body, "audio") === true ? true : null) : false,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
