import * as z from "zod";
import {
  arrayAt,
  imageRef,
  int,
  mediaUrl,
  model,
  modelField,
  numberAt,
  object,
  oneClip,
  oneOf,
  request,
  text,
  videoUrl,
} from "./common.js";
import type { Family } from "./types.js";

/**
 * Video family 5: `<brand>2.7-r2v`; reference-to-video from images with roles and/or videos,
 * referred to in the prompt by order ("image 1", "video 1").
 */

const MODELS = [model("<brand>2.7-r2v")];

const DEFAULT_DURATION = 5;
const MAX_REFERENCES = 5;

const imageWithRole = object({
  url: imageRef({ dataUri: false }),
  // Defaults to reference_image; with first_frame the gateway ignores `size`.
  role: oneOf(["reference_image", "first_frame"]).optional(),
  reference_voice: mediaUrl().optional(),
});

const schema = request(
  {
    model: modelField(MODELS),
    prompt: text(5000),
    image_with_roles: z.array(imageWithRole).optional(),
    // Container (mp4, mov), length (1 to 30 s), sides (240 to 4096 px), ratio (1:8 to 8:1)
    // and size (100 MB) of each video are unknown before the gateway fetches it.
    video_urls: z.array(videoUrl()).optional(),
    negative_prompt: text(500).optional(),
    resolution: oneOf(["720P", "1080P"]).optional(),
    // 2 to 10 when a video is among the references: checked in the rules.
    duration: int(2, 15).meta({ default: DEFAULT_DURATION }).optional(),
    size: oneOf(["16:9", "9:16", "1:1", "4:3", "3:4"]).optional(),
    prompt_extend: z.boolean().optional(),
    watermark: z.boolean().optional(),
    seed: int(0).optional(),
  },
  (body, report) => {
    const images = arrayAt(body, "image_with_roles");
    const videos = arrayAt(body, "video_urls");
    const imageCount = images?.length ?? 0;
    const videoCount = videos?.length ?? 0;
    if (imageCount + videoCount === 0) {
      report(
        ["image_with_roles"],
        "required",
        "send at least one reference: image_with_roles, video_urls, or both",
      );
    }
    if (imageCount + videoCount > MAX_REFERENCES) {
      report(
        [videos !== undefined ? "video_urls" : "image_with_roles"],
        "count",
        `images plus videos must be at most ${MAX_REFERENCES}, got ${imageCount} + ${videoCount}`,
      );
    }
    const duration = numberAt(body, "duration");
    if (videoCount > 0 && duration !== undefined && duration > 10 && duration <= 15) {
      report(
        ["duration"],
        "range",
        `with a video among the references duration must be 2 to 10, got ${duration}`,
      );
    }
  },
);

export const video5: Family = {
  id: "video-5",
  title: "video family 5",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Public URLs only; the spec states no formats, sizes or byte limits for the images.
  imageInputs: [{ path: ["image_with_roles", "*", "url"], dataUri: false }],
  expectedOutputs(body) {
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
