import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import ffmpeg, { type FfmpegCommand, type FfprobeData } from "fluent-ffmpeg";
import { ErrorCategory, ErrorCode, GwError } from "./errors.js";

/**
 * The one module that spawns ffmpeg and ffprobe. Binaries come from `FFMPEG_PATH` /
 * `FFPROBE_PATH` when set, else from the @ffmpeg-installer / @ffprobe-installer packages.
 */

export type { FfmpegCommand };

/** What `probeMedia` reports about a file. */
export interface MediaProbe {
  /** ffprobe's format name, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `png_pipe`. */
  formatName: string;
  durationSeconds: number | null;
  sizeBytes: number | null;
  streams: ProbedStream[];
}

export interface ProbedStream {
  /** "video", "audio", "subtitle", "data", ... */
  type: "video" | "audio" | string;
  codec: string | null;
  width?: number;
  height?: number;
  /** Frames per second. */
  frameRate?: number | null;
  durationSeconds?: number | null;
}

interface BinaryPaths {
  ffmpeg: string;
  ffprobe: string;
}

const require = createRequire(import.meta.url);
const installedPaths = new Map<string, string>();

// Required on first use only: the installer packages throw on unsupported platforms.
function installedPath(pkg: "@ffmpeg-installer/ffmpeg" | "@ffprobe-installer/ffprobe"): string {
  let found = installedPaths.get(pkg);
  if (found === undefined) {
    found = (require(pkg) as { path: string }).path;
    installedPaths.set(pkg, found);
  }
  return found;
}

// The environment is read per command, so a changed FFMPEG_PATH applies to the next command.
function binaryPaths(): BinaryPaths {
  return {
    ffmpeg: process.env.FFMPEG_PATH || installedPath("@ffmpeg-installer/ffmpeg"),
    ffprobe: process.env.FFPROBE_PATH || installedPath("@ffprobe-installer/ffprobe"),
  };
}

const commandPaths = new WeakMap<FfmpegCommand, BinaryPaths>();

/** A fluent-ffmpeg command with the ffmpeg and ffprobe binaries set; run it with `runFfmpeg`. */
export function ffmpegCommand(): FfmpegCommand {
  const paths = binaryPaths();
  const command = ffmpeg().setFfmpegPath(paths.ffmpeg).setFfprobePath(paths.ffprobe);
  // Without the version banner, the stderr tail in errors is ffmpeg's actual complaint.
  command.outputOptions("-hide_banner");
  commandPaths.set(command, paths);
  return command;
}

/**
 * Runs a prepared command; rejects with ffmpeg's stderr tail in the message. Listen to the
 * command's `stderr` event beforehand to read filter output (blackdetect, ...).
 */
export async function runFfmpeg(command: FfmpegCommand): Promise<void> {
  const paths = commandPaths.get(command) ?? binaryPaths();
  await assertExecutable("ffmpeg", "FFMPEG_PATH", paths.ffmpeg);
  // fluent-ffmpeg keeps binary paths in one module-wide cache: set them again just before running.
  command.setFfmpegPath(paths.ffmpeg).setFfprobePath(paths.ffprobe);
  await new Promise<void>((resolve, reject) => {
    command.once("end", () => resolve());
    command.once("error", (error: Error, _stdout: string | null, stderr: string | null) => {
      const firstLine = error.message.split("\n", 1)[0] ?? error.message;
      const tail = stderrTail(stderr ?? "");
      reject(
        new GwError(ErrorCode.Internal, `ffmpeg failed: ${firstLine}${tail ? `\n${tail}` : ""}`, {
          category: ErrorCategory.Internal,
          cause: error,
        }),
      );
    });
    command.run();
  });
}

/** Reads a media file's format, duration (seconds), size (bytes) and streams with ffprobe. */
export async function probeMedia(file: string): Promise<MediaProbe> {
  const command = ffmpegCommand();
  const paths = commandPaths.get(command) ?? binaryPaths();
  await assertExecutable("ffprobe", "FFPROBE_PATH", paths.ffprobe);
  const data = await new Promise<FfprobeData>((resolve, reject) => {
    command.input(file).ffprobe((error: unknown, result: FfprobeData) => {
      if (error) {
        const detail = error instanceof Error ? error.message : String(error);
        reject(
          new GwError(ErrorCode.Internal, `ffprobe cannot read ${file}: ${stderrTail(detail)}`, {
            category: ErrorCategory.Internal,
            cause: error,
          }),
        );
      } else {
        resolve(result);
      }
    });
  });
  return summarizeProbe(data);
}

function summarizeProbe(data: FfprobeData): MediaProbe {
  return {
    formatName: data.format.format_name ?? "",
    durationSeconds: toNumber(data.format.duration),
    sizeBytes: toNumber(data.format.size),
    streams: data.streams.map((stream) => {
      const type = stream.codec_type ?? "unknown";
      const summary: ProbedStream = {
        type,
        codec: stream.codec_name ?? null,
        durationSeconds: toNumber(stream.duration),
      };
      if (type === "video") {
        if (stream.width !== undefined) summary.width = stream.width;
        if (stream.height !== undefined) summary.height = stream.height;
        summary.frameRate = toRate(stream.avg_frame_rate) ?? toRate(stream.r_frame_rate);
      }
      return summary;
    }),
  };
}

// ffprobe reports "N/A" for unknown values; fluent-ffmpeg turns some fields into numbers.
function toNumber(value: unknown): number | null {
  const number = typeof value === "number" ? value : Number.parseFloat(String(value));
  return Number.isFinite(number) ? number : null;
}

/** "30000/1001" → 29.97; "0/0" → null. */
function toRate(value: string | undefined): number | null {
  const [numerator, denominator] = (value ?? "").split("/").map(Number);
  if (numerator === undefined || !Number.isFinite(numerator)) return null;
  if (denominator === undefined) return numerator > 0 ? numerator : null;
  return denominator > 0 && numerator > 0 ? numerator / denominator : null;
}

function stderrTail(stderr: string, lines = 8): string {
  return stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .slice(-lines)
    .join("\n");
}

// Checked up front: fluent-ffmpeg crashes the process (an uncaught TypeError) when spawning a
// missing binary once its capability cache is warm, instead of emitting `error`.
async function assertExecutable(name: string, variable: string, file: string): Promise<void> {
  try {
    await access(file, constants.X_OK);
  } catch (error) {
    throw new GwError(ErrorCode.Usage, `${name} not found or not executable at ${file}`, {
      hint: process.env[variable]
        ? `${variable} is set: point it at a ${name} binary or unset it`
        : `reinstall gwrun's dependencies, or set ${variable} to a ${name} binary`,
      cause: error,
    });
  }
}

/** Writes the frame at `atSeconds` of a clip as a still image (format from the file name). */
export async function extractFrame(
  input: string,
  output: string,
  atSeconds: number,
): Promise<void> {
  const command = ffmpegCommand()
    .input(input)
    .inputOptions(["-ss", String(Math.max(0, atSeconds))])
    .outputOptions(["-frames:v", "1", "-an", "-y"])
    .output(output);
  await runFfmpeg(command);
}

/** A stretch of a clip, in seconds; `end` is null when it lasts to the end. */
export interface FrameInterval {
  start: number;
  end: number | null;
}

/**
 * Runs ffmpeg's `blackdetect` and/or `freezedetect` over a clip (at least `minSeconds` long,
 * default 0.5 s) and returns the black and frozen stretches they report.
 */
export async function detectFrames(
  file: string,
  options: { black: boolean; frozen: boolean; minSeconds?: number },
): Promise<{ black: FrameInterval[]; frozen: FrameInterval[] }> {
  const found = { black: [] as FrameInterval[], frozen: [] as FrameInterval[] };
  const filters = [
    ...(options.black ? [`blackdetect=d=${options.minSeconds ?? 0.5}:pix_th=0.10`] : []),
    ...(options.frozen ? [`freezedetect=n=0.001:d=${options.minSeconds ?? 0.5}`] : []),
  ];
  if (filters.length === 0) return found;
  const command = ffmpegCommand()
    .input(file)
    .videoFilters(filters)
    .noAudio()
    .format("null")
    .output("-");
  command.on("stderr", (line: string) => {
    const black = /black_start:\s*([\d.]+)\s+black_end:\s*([\d.]+)/.exec(line);
    if (black !== null) found.black.push({ start: Number(black[1]), end: Number(black[2]) });
    const freezeStart = /freeze_start:\s*([\d.]+)/.exec(line);
    if (freezeStart !== null) found.frozen.push({ start: Number(freezeStart[1]), end: null });
    const freezeEnd = /freeze_end:\s*([\d.]+)/.exec(line);
    const open = found.frozen.at(-1);
    if (freezeEnd !== null && open !== undefined) open.end = Number(freezeEnd[1]);
  });
  await runFfmpeg(command);
  return found;
}
