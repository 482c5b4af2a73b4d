import * as z from "zod";
import {
  imageRef,
  int,
  model,
  modelField,
  oneOf,
  parsePixels,
  request,
  stringAt,
} from "./common.js";
import type { Family, PixelSize } from "./types.js";

/** Image family A: `<brand>-image-2`, text-to-image or image-to-image with `image_urls`. */

const MODELS = [model("<brand>-image-2")];

const RATIOS = [
  "1:1",
  "3:2",
  "2:3",
  "4:3",
  "3:4",
  "5:4",
  "4:5",
  "16:9",
  "9:16",
  "2:1",
  "1:2",
  "3:1",
  "1:3",
  "21:9",
  "9:21",
] as const;
const RESOLUTIONS = ["1k", "2k", "4k"] as const;
type Ratio = (typeof RATIOS)[number];
type Resolution = (typeof RESOLUTIONS)[number];

// The spec's pixel table: size × resolution → accepted outputs (alternatives).
const PIXELS: Record<Ratio, Record<Resolution, string[]>> = {
  "1:1": { "1k": ["1024x1024", "1254x1254"], "2k": ["2048x2048"], "4k": ["2880x2880"] },
  "3:2": { "1k": ["1536x1024"], "2k": ["2048x1360"], "4k": ["3520x2336"] },
  "2:3": { "1k": ["1024x1536"], "2k": ["1360x2048"], "4k": ["2336x3520"] },
  "4:3": { "1k": ["1024x768"], "2k": ["2048x1536"], "4k": ["3312x2480"] },
  "3:4": { "1k": ["768x1024"], "2k": ["1536x2048"], "4k": ["2480x3312"] },
  "5:4": { "1k": ["1280x1024", "1448x1086"], "2k": ["2560x2048"], "4k": ["3216x2576"] },
  "4:5": { "1k": ["1024x1280", "1122x1402"], "2k": ["2048x2560"], "4k": ["2576x3216"] },
  "16:9": { "1k": ["1536x864", "1672x941"], "2k": ["2048x1152"], "4k": ["3840x2160"] },
  "9:16": { "1k": ["864x1536", "941x1672"], "2k": ["1152x2048"], "4k": ["2160x3840"] },
  "2:1": { "1k": ["2048x1024", "1774x887"], "2k": ["2688x1344"], "4k": ["3840x1920"] },
  "1:2": { "1k": ["1024x2048", "887x1774"], "2k": ["1344x2688"], "4k": ["1920x3840"] },
  "3:1": { "1k": ["1881x836", "1536x512"], "2k": ["3072x1024"], "4k": ["3840x1280"] },
  "1:3": { "1k": ["887x1774", "512x1536"], "2k": ["1024x3072"], "4k": ["1280x3840"] },
  "21:9": { "1k": ["2016x864", "1915x821"], "2k": ["2688x1152"], "4k": ["3840x1648"] },
  "9:21": { "1k": ["864x2016", "821x1915"], "2k": ["1152x2688"], "4k": ["1648x3840"] },
};

/** The pixel sizes family A promises for a size and resolution; null when the server picks. */
export function imageAPixels(size: string, resolution: string): PixelSize[] | null {
  const row = Object.hasOwn(PIXELS, size) ? PIXELS[size as Ratio] : undefined;
  if (row !== undefined) {
    const cell = Object.hasOwn(row, resolution) ? row[resolution as Resolution] : row["1k"];
    return cell.map((value) => parsePixels(value) as PixelSize);
  }
  const pixels = parsePixels(size);
  return pixels === undefined ? null : [pixels];
}

const RATIO_IN_TEXT = new RegExp(`(^|[^0-9])(${RATIOS.join("|")})(?![0-9])`);

const schema = request(
  {
    model: modelField(MODELS),
    prompt: z.string(),
    n: int(1, 1).optional(),
    size: z.string().optional(),
    resolution: oneOf(RESOLUTIONS).optional(),
    image_urls: z
      .array(imageRef({ dataUri: true }))
      .max(16)
      .optional(),
    official_fallback: z.boolean().optional(),
  },
  (body, report) => {
    const size = stringAt(body, "size");
    if (
      size !== undefined &&
      size !== "auto" &&
      !Object.hasOwn(PIXELS, size) &&
      parsePixels(size) === undefined
    ) {
      report(
        ["size"],
        "size",
        `must be "auto", a ratio (${RATIOS.join(", ")}) or pixels <width>x<height>, got "${size}"`,
      );
    }
    const prompt = stringAt(body, "prompt");
    const ratio = prompt === undefined ? null : RATIO_IN_TEXT.exec(prompt);
    if (ratio !== null) {
      report(
        ["prompt"],
        "ratio-in-prompt",
        `put the ratio "${ratio[2]}" in "size", not in the prompt`,
        "warning",
      );
    }
  },
);

export const imageA: Family = {
  id: "image-a",
  title: "image family A",
  lane: "image",
  endpoint: "/v1/images/generations",
  models: MODELS,
  schema,
  imageInputs: [{ path: ["image_urls", "*"], dataUri: true }],
  expectedOutputs(body) {
    const size = stringAt(body, "size") ?? "1:1";
    const resolution = stringAt(body, "resolution") ?? "1k";
    return { kind: "image", count: 1, exact: true, sizes: imageAPixels(size, resolution) };
  },
  // Billed by resolution tier; the spec states no amounts.
  estimateCost: () => null,
};
