import { seededRandom } from "../core/random.js";
import { encodeTestClip } from "../media/index.js";

/** Frames per second of every simulated clip. */
export const CLIP_FPS = 12;

export interface ClipShape {
  width: number;
  height: number;
  durationSeconds: number;
  audio: boolean;
  seed: string;
}

/**
 * Writes an H.264/yuv420p MP4 (faststart) of exactly `width`×`height` and `durationSeconds`:
 * a background colour from `seed` with a moving test pattern, plus an AAC sine tone (pitch from
 * `seed`) when `audio` is set. The moving pattern keeps black- and freeze-detection quiet.
 */
export async function writeMp4(file: string, clip: ClipShape): Promise<void> {
  const { width, height, durationSeconds, audio, seed } = clip;
  const random = seededRandom(`clip:${seed}`);
  // Channels kept mid-range so the background never reads as black.
  const background = [0, 1, 2]
    .map(() => (48 + Math.floor(random.next() * 160)).toString(16).padStart(2, "0"))
    .join("");
  const box = Math.max(2, 2 * Math.round(Math.min(width, height) / 8));
  await encodeTestClip(file, {
    width,
    height,
    fps: CLIP_FPS,
    durationSeconds,
    background,
    box,
    top: Math.floor(random.next() * Math.max(height - box, 0)),
    speed: Math.max(32, Math.round(width / 4)),
    toneHz: audio ? 220 + Math.floor(random.next() * 660) : null,
  });
}
