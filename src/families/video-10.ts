import * as z from "zod";
import {
  imageRef,
  int,
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
 * Video family 10: `<brand>q3` (camera switching) and `<brand>q3-mix` (quality, short clips);
 * reference-to-video from 1 to 7 images plus a prompt.
 */

const Q3 = model("<brand>q3");
const MIX = model("<brand>q3-mix");
const MODELS = [Q3, MIX];

const MB = 1024 * 1024;
const DEFAULT_DURATION = 5;
const Q3_MIN_DURATION = 3;
const MIX_RESOLUTIONS: readonly string[] = ["720p", "1080p"];

const schema = request(
  {
    model: modelField(MODELS),
    // "Describe action and camera, not appearance" is advice, not a checkable rule.
    prompt: text(5000),
    image_urls: z
      .array(imageRef({ dataUri: false }))
      .min(1)
      .max(7),
    // q3 starts at 3 s, q3-mix at 1 s: the model-specific bound is in the rules.
    duration: int(1, 16).meta({ default: DEFAULT_DURATION }).optional(),
    // q3-mix has no 540p: checked in the rules.
    resolution: oneOf(["540p", "720p", "1080p"]).optional(),
    aspect_ratio: oneOf(["16:9", "9:16", "4:3", "3:4", "1:1"]).optional(),
    seed: int().optional(),
  },
  (body, report) => {
    const id = stringAt(body, "model") ?? "";
    const duration = numberAt(body, "duration");
    if (
      Q3.pattern.test(id) &&
      duration !== undefined &&
      Number.isInteger(duration) &&
      duration >= 1 &&
      duration < Q3_MIN_DURATION
    ) {
      report(
        ["duration"],
        "model",
        `${Q3.example.replace("acme", "<brand>")} takes duration 3 to 16, got ${duration}; use 3 or more, or ${MIX.example.replace("acme", "<brand>")} for 1 to 2 s clips`,
      );
    }
    const resolution = stringAt(body, "resolution");
    if (MIX.pattern.test(id) && resolution === "540p") {
      report(
        ["resolution"],
        "model",
        `${MIX.example.replace("acme", "<brand>")} has no 540p; use ${MIX_RESOLUTIONS.join(" or ")}`,
      );
    }
  },
);

export const video10: Family = {
  id: "video-10",
  title: "video family 10",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  imageInputs: [
    {
      path: ["image_urls", "*"],
      dataUri: false,
      formats: ["png", "jpeg", "webp"],
      maxBytes: 50 * MB,
      minSide: 128,
      minRatio: 1 / 4,
      maxRatio: 4,
    },
  ],
  expectedOutputs(body) {
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
