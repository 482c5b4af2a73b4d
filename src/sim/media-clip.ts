import { ffmpegCommand, runFfmpeg } from "../core/ffmpeg.js";
import { seededRandom } from "../core/random.js";

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
  const travel = width - box;
  const speed = Math.max(32, Math.round(width / 4));
  const x = travel > 0 ? `'mod(t*${speed},${travel})'` : "0";
  const y = Math.floor(random.next() * Math.max(height - box, 0));
  const tone = 220 + Math.floor(random.next() * 660);

  const command = ffmpegCommand()
    .input(`color=c=0x${background}:s=${width}x${height}:r=${CLIP_FPS}`)
    .inputFormat("lavfi")
    .input(`testsrc2=s=${box}x${box}:r=${CLIP_FPS}`)
    .inputFormat("lavfi");
  if (audio) command.input(`sine=frequency=${tone}:sample_rate=48000`).inputFormat("lavfi");
  command
    .complexFilter(`[0:v][1:v]overlay=x=${x}:y=${y},format=yuv420p[v]`)
    .outputOptions(["-map", "[v]", ...(audio ? ["-map", "2:a"] : [])])
    .videoCodec("libx264")
    .outputOptions(["-preset", "ultrafast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
    .fps(CLIP_FPS)
    .duration(durationSeconds)
    .format("mp4")
    .output(file);
  if (audio) command.audioCodec("aac").audioBitrate(96);
  await runFfmpeg(command);
}
