import * as z from "zod";
import {
  arrayAt,
  imageRef,
  int,
  model,
  modelField,
  numberAt,
  oneClip,
  oneOf,
  recordAt,
  request,
  text,
  videoFormatProblem,
  videoLink,
} from "./common.js";
import type { Family } from "./types.js";

/**
 * Video family 8: `<brand>2.7-videoedit`; edits the first video of `video_urls` by a prompt
 * (or a default style transfer without one), optionally guided by style images.
 */

const MODELS = [model("<brand>2.7-videoedit")];

const DEFAULT_AUDIO_SETTING = "auto";

const schema = request(
  {
    model: modelField(MODELS),
    // Only the first is used. Its length (2 to 10 s), sides (240 to 4096 px), ratio (1:8 to
    // 8:1) and size (100 MB) are unknown before the gateway fetches it.
    video_urls: z.array(videoLink()).min(1),
    prompt: text(5000).optional(),
    negative_prompt: text(500).optional(),
    image_urls: z
      .array(imageRef({ dataUri: false }))
      .max(4)
      .optional(),
    resolution: oneOf(["720P", "1080P"]).optional(),
    // Must not exceed the source video, whose length is unknown before the gateway fetches it.
    duration: int(0, 10)
      .refine((value) => value !== 1, {
        message: "must be 0 (keep the full length) or 2 to 10, got 1",
        params: { rule: "range" },
      })
      .meta({ description: "0 (keep the full length) or 2 to 10" })
      .optional(),
    // Omitted: the input's ratio.
    size: oneOf(["16:9", "9:16", "1:1", "4:3", "3:4"]).optional(),
    prompt_extend: z.boolean().optional(),
    watermark: z.boolean().optional(),
    seed: int(0).optional(),
    // Other fields of metadata exist but are not shown: only audio_setting is checked.
    metadata: z.looseObject({ audio_setting: oneOf(["auto", "origin"]).optional() }).optional(),
  },
  (body, report) => {
    // Only the first video is used, so only its format matters.
    const first = arrayAt(body, "video_urls")?.[0];
    const problem = typeof first === "string" ? videoFormatProblem(first) : undefined;
    if (problem !== undefined) report(["video_urls", 0], "format", problem);
  },
);

export const video8: Family = {
  id: "video-8",
  title: "video family 8",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Public URLs only; the spec states no formats, sizes or byte limits for style images.
  imageInputs: [{ path: ["image_urls", "*"], dataUri: false }],
  expectedOutputs(body) {
    const duration = numberAt(body, "duration") ?? 0;
    const audioSetting = recordAt(body.metadata)?.audio_setting ?? DEFAULT_AUDIO_SETTING;
    return oneClip({
      // 0 keeps the source's full length, which only the gateway knows.
      durationSeconds: duration === 0 ? null : duration,
      // "auto" regenerates the audio; "origin" keeps the source's, which may have none.
      audio: audioSetting === "auto" ? true : null,
    });
  },
  // Billed by actual output length; the spec states no amounts.
  estimateCost: () => null,
};
