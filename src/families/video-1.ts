import * as z from "zod";
import { suggest } from "../core/suggest.js";
import {
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
 * Video family 1: `<brand>-video-2.3` and `<brand>-video-2.3-Fast`; text-to-video, or
 * image-to-video from `first_frame_image` (which the Fast variant requires).
 */

const STANDARD = model("<brand>-video-2.3");
const FAST = model("<brand>-video-2.3-Fast");
const MODELS = [STANDARD, FAST];

/** The camera commands a prompt may carry, exactly as the spec writes them. */
export const CAMERA_COMMANDS = [
  "左移",
  "右移",
  "左摇",
  "右摇",
  "推进",
  "拉远",
  "上升",
  "下降",
  "上摇",
  "下摇",
  "变焦推近",
  "变焦拉远",
  "晃动",
  "跟随",
  "固定",
] as const;

const BRACKETED = /\[([^[\]]*)\]/g;
const DEFAULT_DURATION = 6;

/** A close camera command, only when it shares a character (the typo limit alone is loose for 2-character words). */
function closeCommand(word: string): string | undefined {
  const match = suggest(word, CAMERA_COMMANDS);
  return match !== undefined && [...word].some((char) => match.includes(char)) ? match : undefined;
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: text(2000),
    duration: intOneOf([6, 10]).meta({ default: DEFAULT_DURATION }).optional(),
    resolution: oneOf(["768p", "1080p"]).optional(),
    first_frame_image: imageRef({ dataUri: true }).optional(),
    prompt_optimizer: z.boolean().optional(),
    fast_pretreatment: z.boolean().optional(),
    watermark: z.boolean().optional(),
  },
  (body, report) => {
    if (FAST.pattern.test(stringAt(body, "model") ?? "") && body.first_frame_image === undefined) {
      report(
        ["first_frame_image"],
        "required",
        "the Fast model starts from a picture: add first_frame_image (URL or Data URI), or use the non-Fast model",
      );
    }
    if (stringAt(body, "resolution") === "1080p" && numberAt(body, "duration") === 10) {
      report(
        ["duration"],
        "only-with",
        'duration 10 is only available at resolution "768p"; at "1080p" use duration 6',
      );
    }
    const prompt = stringAt(body, "prompt");
    if (prompt === undefined) return;
    // Bracketed text is read as a camera command: anything else there is most likely a typo.
    for (const [bracketed, word = ""] of prompt.matchAll(BRACKETED)) {
      if ((CAMERA_COMMANDS as readonly string[]).includes(word)) continue;
      const close = closeCommand(word);
      report(
        ["prompt"],
        "camera-command",
        close !== undefined
          ? `"${bracketed}" is not a camera command (did you mean "[${close}]"?)`
          : `"${bracketed}" is not a camera command; square brackets hold only ${CAMERA_COMMANDS.map((c) => `[${c}]`).join(" ")}`,
        "warning",
      );
    }
  },
);

export const video1: Family = {
  id: "video-1",
  title: "video family 1",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // The spec states no formats, sizes or byte limits for the first frame.
  imageInputs: [{ path: ["first_frame_image"], dataUri: true }],
  expectedOutputs(body) {
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
