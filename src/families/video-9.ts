import * as z from "zod";
import {
  arrayAt,
  has,
  imageRef,
  int,
  mediaUrl,
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
} from "./common.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Video family 9: `<brand>-1-0-pro-fast` and `<brand>-1-0-pro-quality`; text-to-video, from one
 * first-frame image (`image_urls`), or from images with roles (first/last frame, reference).
 */

const FAST = model("<brand>-1-0-pro-fast");
const QUALITY = model("<brand>-1-0-pro-quality");
const MODELS = [FAST, QUALITY];

const ROLES = ["first_frame", "last_frame", "reference"] as const;
const DEFAULT_DURATION = 5;
const DEFAULT_RESOLUTION = "1080p";

const imageWithRole = object({
  url: imageRef({ dataUri: false }),
  role: oneOf(ROLES),
  reference_voice: mediaUrl().optional(),
});

function checkRoles(body: RequestBody, report: Report): void {
  const items = arrayAt(body, "image_with_roles");
  if (items === undefined) return;
  const roles = items.map((item) => recordAt(item)?.role);
  const seen = new Set<unknown>();
  roles.forEach((role, index) => {
    if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) return;
    if (seen.has(role)) {
      report(
        ["image_with_roles", index, "role"],
        "duplicate-role",
        `one image per role: "${role}" is already used by an earlier item of image_with_roles`,
      );
    }
    seen.add(role);
  });
  // On fast, last_frame is refused outright, which also covers first_frame with last_frame.
  const lastFrame = roles.indexOf("last_frame");
  if (lastFrame !== -1 && FAST.pattern.test(stringAt(body, "model") ?? "")) {
    report(
      ["image_with_roles", lastFrame, "role"],
      "model",
      `role "last_frame" is only available on ${QUALITY.example.replace("acme", "<brand>")}; the fast variant cannot use first_frame with last_frame`,
    );
  }
  const resolution = body.resolution === undefined ? DEFAULT_RESOLUTION : body.resolution;
  if (roles.includes("reference") && resolution === "1080p") {
    report(
      ["resolution"],
      "mutually-exclusive",
      `1080p${body.resolution === undefined ? " (the default resolution)" : ""} is unsupported with a "reference" image; set resolution to "480p" or "720p"`,
    );
  }
}

const schema = request(
  {
    model: modelField(MODELS),
    prompt: z.string(),
    duration: int(2, 12).optional(),
    aspect_ratio: oneOf(["16:9", "9:16", "1:1", "4:3", "3:4", "21:9"]).optional(),
    resolution: oneOf(["480p", "720p", "1080p"]).optional(),
    // -1 means random.
    seed: int(-1, 2 ** 32 - 1).optional(),
    image_urls: z
      .array(imageRef({ dataUri: false }))
      .min(1)
      .max(1)
      .optional(),
    // One image per role bounds it to three items.
    image_with_roles: z.array(imageWithRole).max(ROLES.length).optional(),
  },
  (body, report) => {
    if (has(body, "image_urls") && has(body, "image_with_roles")) {
      report(
        ["image_with_roles"],
        "mutually-exclusive",
        "image_urls and image_with_roles exclude each other; send a first frame as image_urls or all images in image_with_roles",
      );
    }
    checkRoles(body, report);
  },
);

export const video9: Family = {
  id: "video-9",
  title: "video family 9",
  lane: "video",
  endpoint: "/v1/videos/generations",
  models: MODELS,
  schema,
  // Public URLs only; the spec states no formats, sizes or byte limits.
  imageInputs: [
    { path: ["image_urls", "*"], dataUri: false },
    { path: ["image_with_roles", "*", "url"], dataUri: false },
  ],
  expectedOutputs(body) {
    return oneClip({
      durationSeconds: numberAt(body, "duration") ?? DEFAULT_DURATION,
    });
  },
  // The spec states no prices for this family.
  estimateCost: () => null,
};
