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
  recordAt,
  request,
  text,
} from "./common.js";
import type { Family } from "./types.js";

/**
 * Video family 8: `<brand>2.7-videoedit`; edits the first video of `video_urls` by a prompt
 * (or a default style transfer without one), optionally guided by style images.
 */

const MODELS = [model("<brand>2.7-videoedit")];

const VIDEO_EXTENSIONS = ["mp4", "mov"];
const DEFAULT_AUDIO_SETTING = "auto";

/** The file extension of a URL's path, lowercased; undefined when the path has none. */
function urlExtension(value: string): string | undefined {
  let path: string;
  try {
    path = new URL(value).pathname;
  } catch {
    return undefined;
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : undefined;
}

const schema = request(
  {
    model: modelField(MODELS),
    // Only the first is used. Its length (2 to 10 s), sides (240 to 4096 px), ratio (1:8 to
    // 8:1) and size (100 MB) are unknown before the gateway fetches it.
    video_urls: z.array(mediaUrl()).min(1),
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
      .optional(),
    // Omitted: the input's ratio.
    size: oneOf(["16:9", "9:16", "1:1", "4:3", "3:4"]).optional(),
    prompt_extend: z.boolean().optional(),
    watermark: z.boolean().optional(),
    seed: int(0).optional(),
    metadata: object({ audio_setting: oneOf(["auto", "origin"]).optional() }).optional(),
  },
  (body, report) => {
    // A URL without an extension may still be MP4 or MOV; only a stated other one is wrong.
    arrayAt(body, "video_urls")?.forEach((value, index) => {
      if (typeof value !== "string") return;
      const extension = urlExtension(value);
      if (extension === undefined || VIDEO_EXTENSIONS.includes(extension)) return;
      report(
        ["video_urls", index],
        "format",
        `the video must be MP4 or MOV, got a ".${extension}" file`,
      );
    });
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
