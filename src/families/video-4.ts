import * as z from "zod";
import { didYouMean } from "../core/suggest.js";
import {
  arrayAt,
  booleanAt,
  has,
  imageRef,
  int,
  model,
  modelField,
  numberAt,
  object,
  oneClip,
  oneOf,
  type Report,
  recordAt,
  request,
  stringAt,
  text,
} from "./common.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Video family 4: `<brand>-v3`; text- or frame-to-video, optionally multi-shot, with named
 * elements referred to as `@name` in the prompt.
 */

const MODELS = [model("<brand>-v3")];

const RATIOS = ["16:9", "9:16", "1:1"] as const;
const DEFAULT_DURATION = 5;

const shot = object({
  index: int(1),
  prompt: text(512),
  duration: int(1),
});

const element = object({
  name: z.string(),
  description: z.string(),
  // The first image is a front view; what an image shows cannot be checked.
  element_input_urls: z
    .array(imageRef({ dataUri: false }))
    .min(2)
    .max(4),
});

function checkShots(body: RequestBody, report: Report): void {
  const multiShot = booleanAt(body, "multi_shot") === true;
  if (multiShot && !has(body, "shot_type")) {
    report(
      ["shot_type"],
      "required",
      'multi_shot true needs shot_type "customize" or "intelligence"',
    );
  }
  const shots = arrayAt(body, "multi_prompt");
  if (multiShot && stringAt(body, "shot_type") === "customize" && shots === undefined) {
    report(
      ["multi_prompt"],
      "required",
      'shot_type "customize" needs multi_prompt: 1 to 6 shots {index, prompt, duration}',
    );
  }
  if (shots === undefined) return;
  const total = numberAt(body, "duration") ?? DEFAULT_DURATION;
  let sum = 0;
  let summable = true;
  shots.forEach((item, position) => {
    const index = recordAt(item)?.index;
    if (typeof index === "number" && index !== position + 1) {
      report(
        ["multi_prompt", position, "index"],
        "shot-index",
        `shot indexes run 1, 2, 3... without gaps: multi_prompt[${position}].index must be ${position + 1}, got ${index}`,
      );
    }
    const seconds = recordAt(item)?.duration;
    if (typeof seconds !== "number") {
      summable = false;
      return;
    }
    sum += seconds;
    if (seconds > total) {
      report(
        ["multi_prompt", position, "duration"],
        "range",
        `a shot lasts at most the total duration (${total}), got ${seconds}`,
      );
    }
  });
  if (summable && shots.length > 0 && sum !== total) {
    report(
      ["multi_prompt"],
      "shot-sum",
      `shot durations must sum to the total duration (${total}), got ${sum}`,
    );
  }
}

/**
 * "`@name` refers to an element": with element_list sent, an `@word` (at the start or after a
 * space, so e-mail addresses are left alone) that names no element is a broken reference.
 * Without element_list an "@" is taken as plain text.
 */
function checkElementNames(body: RequestBody, report: Report): void {
  const prompt = stringAt(body, "prompt");
  const elements = arrayAt(body, "element_list");
  if (prompt === undefined || elements === undefined || elements.length === 0) return;
  const names = elements
    .map((item) => recordAt(item)?.name)
    .filter((name): name is string => typeof name === "string" && name !== "");
  for (const match of prompt.matchAll(/(?<=^|\s)@/g)) {
    const rest = prompt.slice(match.index + 1);
    const named = names.some(
      (name) => rest.startsWith(name) && !/^[\p{L}\p{N}_]/u.test(rest.slice(name.length)),
    );
    if (named) continue;
    const word = /^[\p{L}\p{N}_-]*/u.exec(rest)?.[0] ?? "";
    report(
      ["prompt"],
      "unknown-element",
      `"@${word}" names no element of element_list (${names.join(", ")})${didYouMean(word, names)}`,
      "warning",
    );
  }
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: z.string().optional(),
    negative_prompt: z.string().optional(),
    mode: oneOf(["std", "pro", "4k"]).optional(),
    duration: int(3, 15).meta({ default: DEFAULT_DURATION }).optional(),
    aspect_ratio: oneOf(RATIOS).optional(),
    // The spec's request examples send the ratio as `size`.
    size: oneOf(RATIOS).optional(),
    // One image is the first frame, two are first and last; a last frame alone cannot be
    // written as an array. Hotlink protection cannot be seen from the URL.
    image_urls: z
      .array(imageRef({ dataUri: false }))
      .max(2)
      .optional(),
    watermark: z.boolean().optional(),
    audio: z.boolean().optional(),
    multi_shot: z.boolean().optional(),
    shot_type: oneOf(["customize", "intelligence"]).optional(),
    multi_prompt: z.array(shot).min(1).max(6).optional(),
    element_list: z.array(element).max(3).optional(),
  },
  (body, report) => {
    if (!has(body, "prompt") && booleanAt(body, "multi_shot") !== true) {
      report(["prompt"], "required", "prompt is required unless multi_shot is true");
    }
    const aspect = stringAt(body, "aspect_ratio");
    const size = stringAt(body, "size");
    if (aspect !== undefined && size !== undefined && aspect !== size) {
      report(
        ["size"],
        "mutually-exclusive",
        `aspect_ratio and size are the same setting, and disagree ("${aspect}" and "${size}"); send only one`,
      );
    }
    checkShots(body, report);
    checkElementNames(body, report);
  },
);

export const video4: Family = {
  id: "video-4",
  title: "video family 4",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Public URLs only; the spec states no formats, sizes or byte limits.
  imageInputs: [
    { path: ["image_urls", "*"], dataUri: false },
    { path: ["element_list", "*", "element_input_urls", "*"], dataUri: false },
  ],
  expectedOutputs(body) {
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
      audio: booleanAt(body, "audio") ?? false,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
