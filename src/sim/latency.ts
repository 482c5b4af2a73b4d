import type { Family } from "../families/index.js";

/**
 * How long tasks take at the gateway, in nominal seconds: [fastest, slowest]. The spec says a
 * single image usually completes in 30 to 60 seconds; clips take minutes.
 */
const RUN_SECONDS: Readonly<Record<string, readonly [number, number]>> = {
  "image-a": [30, 60],
  "image-b": [20, 45],
  "image-c": [20, 40],
  "image-d": [10, 25],
  "image-e": [15, 35],
  "image-edits": [20, 40],
  "video-1": [60, 150],
  "video-2": [90, 200],
  "video-3": [60, 180],
  "video-4": [90, 240],
  "video-5": [90, 200],
  "video-6": [60, 150],
  "video-7": [90, 200],
  "video-8": [60, 150],
  "video-9": [60, 180],
  "video-10": [60, 150],
};

const FALLBACK: Readonly<Record<string, readonly [number, number]>> = {
  image: [20, 60],
  video: [60, 180],
  text: [1, 3],
};

/** What `latencySeconds` (`--latency`) may name: a media lane or family (text calls have none). */
export const LATENCY_KEYS: readonly string[] = ["image", "video", ...Object.keys(RUN_SECONDS)];

/** Seconds spent `submitted` before processing starts. */
const QUEUE_SECONDS: readonly [number, number] = [2, 8];

export interface Latency {
  /** Nominal seconds queued, then running. */
  queueSeconds: number;
  runSeconds: number;
  /** What the gateway announces as `estimated_time`: the middle of the family's range. */
  estimatedSeconds: number;
}

/**
 * A task's latency; `draw` is a number in [0, 1) that places it within the family's range.
 * `fixed` (nominal seconds by family id or lane) replaces the range with an exact total.
 */
export function latencyOf(
  family: Family,
  draw: number,
  fixed: Readonly<Record<string, number>> = {},
): Latency {
  // Family B answers the submit with `processing`: it starts at once.
  const queued =
    family.id === "image-b" ? 0 : QUEUE_SECONDS[0] + draw * (QUEUE_SECONDS[1] - QUEUE_SECONDS[0]);
  const total = fixed[family.id] ?? fixed[family.lane];
  if (total !== undefined) {
    // Still queued for a while first (at most half), so the states move on as usual.
    const queueSeconds = Math.min(queued, total / 2);
    return { queueSeconds, runSeconds: total - queueSeconds, estimatedSeconds: Math.round(total) };
  }
  const [fastest, slowest] = RUN_SECONDS[family.id] ?? FALLBACK[family.lane] ?? [20, 60];
  return {
    queueSeconds: queued,
    runSeconds: fastest + draw * (slowest - fastest),
    estimatedSeconds: Math.round((fastest + slowest) / 2),
  };
}
