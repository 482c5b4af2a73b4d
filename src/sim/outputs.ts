import { sha256 } from "../core/hash.js";
import type { Family, PriceTable, RequestBody } from "../families/index.js";
import { parsePixels, ruleFor, stringAt, taskCost } from "../families/index.js";

/**
 * What a task will deliver: the family's promised outputs where the spec states them, and a
 * plausible choice from the request's own fields (ratio, resolution) where it does not.
 */
export interface OutputPlan {
  kind: "image" | "video";
  count: number;
  width: number;
  height: number;
  /** Clip seconds. */
  duration?: number;
  audio?: boolean;
  /** Content seed: outputs of different prompts differ. */
  seed: string;
}

export interface OutputFaults {
  wrongSize: boolean;
  shortClip: boolean;
}

const TIER_PIXELS: Readonly<Record<string, number>> = {
  "0.5k": 512,
  "1k": 1024,
  "2k": 2048,
  "4k": 4096,
};

const VIDEO_LINES: Readonly<Record<string, number>> = { std: 720, pro: 1080, "4k": 2160 };

/** The outputs of one task of this request; `draw` in [0, 1) settles the gateway's own choices. */
export function planOutputs(
  family: Family,
  body: RequestBody,
  draw: number,
  faults: OutputFaults,
  occurrence: number,
  variants?: number,
): OutputPlan | undefined {
  const expected = family.expectedOutputs(body);
  if (expected.kind === "text") return undefined;
  const seed = contentSeed(body, occurrence, variants);
  const sizes = expected.sizes;
  const promised = sizes === null ? undefined : sizes[Math.floor(draw * sizes.length)];
  if (expected.kind === "image") {
    let size = promised ?? imageSize(body);
    if (faults.wrongSize) size = wrongSize(size, sizes ?? []);
    // A count that is only an upper bound (sequential sets) is the model's to choose.
    const count = expected.exact ? expected.count : 1 + Math.floor(draw * expected.count);
    return { kind: "image", count, ...size, seed };
  }
  const size = even(promised ?? videoSize(body));
  const requested = expected.durationSeconds ?? 5;
  const duration = faults.shortClip ? Math.max(0.5, Math.round(requested * 4) / 10) : requested;
  return { kind: "video", count: 1, ...size, duration, audio: expected.audio ?? false, seed };
}

function contentSeed(body: RequestBody, occurrence: number, variants: number | undefined): string {
  const prompt = stringAt(body, "prompt") ?? JSON.stringify(body);
  // A request's own seed draws a picture of its own, as a model's does: a new take differs.
  const seed = typeof body.seed === "number" || typeof body.seed === "string" ? body.seed : "";
  const hash = sha256(`${prompt}\n${occurrence}${seed === "" ? "" : `\nseed ${seed}`}`).slice(
    0,
    12,
  );
  // A benchmark may ask for few distinct pictures so rendering does not dominate.
  return variants === undefined ? hash : String(Number.parseInt(hash, 16) % variants);
}

function ratioOf(body: RequestBody): number {
  for (const field of ["aspect_ratio", "size"]) {
    const match = /^(\d+):(\d+)$/.exec(stringAt(body, field) ?? "");
    if (match !== null) return Number(match[1]) / Number(match[2]);
  }
  return 1;
}

/** Pixels for an image whose size the spec does not tabulate: the tier on the long side. */
function imageSize(body: RequestBody): { width: number; height: number } {
  const size = stringAt(body, "size") ?? "";
  const pixels = parsePixels(size, "x*");
  if (pixels !== undefined) return pixels;
  const tier =
    TIER_PIXELS[size.toLowerCase()] ??
    TIER_PIXELS[(stringAt(body, "resolution") ?? "").toLowerCase()] ??
    1024;
  const ratio = ratioOf(body);
  return ratio >= 1
    ? { width: tier, height: Math.round(tier / ratio) }
    : { width: Math.round(tier * ratio), height: tier };
}

/** Pixels for a clip: the resolution's line count on the short side, at the requested ratio. */
function videoSize(body: RequestBody): { width: number; height: number } {
  const lines =
    Number(/^(\d+)p$/i.exec(stringAt(body, "resolution") ?? "")?.[1]) ||
    VIDEO_LINES[stringAt(body, "mode") ?? ""] ||
    720;
  const ratio = /^(\d+):(\d+)$/.test(stringAt(body, "aspect_ratio") ?? stringAt(body, "size") ?? "")
    ? ratioOf(body)
    : 16 / 9;
  return ratio >= 1
    ? { width: Math.round(lines * ratio), height: lines }
    : { width: lines, height: Math.round(lines / ratio) };
}

/** H.264 in yuv420p needs even sides. */
function even(size: { width: number; height: number }): { width: number; height: number } {
  return { width: size.width + (size.width % 2), height: size.height + (size.height % 2) };
}

/** Half the promised size, nudged off any accepted alternative. */
function wrongSize(
  size: { width: number; height: number },
  accepted: readonly { width: number; height: number }[],
): { width: number; height: number } {
  let wrong = { width: Math.round(size.width / 2), height: Math.round(size.height / 2) };
  while (accepted.some((s) => s.width === wrong.width && s.height === wrong.height)) {
    wrong = { width: wrong.width + 2, height: wrong.height };
  }
  return wrong;
}

/**
 * The simulator's price for one task: the manifest's (`prices`) or the family's where either
 * states one, by the rule `gwrun plan` prices it with.
 */
export function priceOf(
  family: Family,
  body: RequestBody,
  plan: OutputPlan | undefined,
  prices: PriceTable,
): number {
  const stated = taskCost(family, body, ruleFor(prices, body));
  if (stated !== null) return stated;
  if (plan === undefined) return 0;
  // Unstated prices: 0.10 per image, 0.05 per second of video.
  const amount = plan.kind === "image" ? 0.1 * plan.count : 0.05 * (plan.duration ?? 5);
  return Math.round(amount * 100) / 100;
}
