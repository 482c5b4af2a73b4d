import { execFile } from "node:child_process";
import { promisify } from "node:util";
import * as z from "zod";
import { ErrorCategory, ErrorCode, GwError } from "../core/errors.js";
import { commandIo } from "../core/io.js";
import { chooseTool, type MediaTool, TOOL_VARIABLES } from "./ffmpeg-choice.js";

/**
 * The one module that runs ffmpeg and ffprobe on media (`ffmpeg-choice.ts` only asks their
 * versions), with the binaries `chooseTool` picks: FFMPEG_PATH / FFPROBE_PATH, else a system
 * one of version 5 or later, else the bundled packages.
 */

/** Options every call accepts. */
export interface MediaRunOptions {
  /** Stops the tool (SIGTERM) and rejects with the signal's AbortError. */
  signal?: AbortSignal;
}

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

/** A stretch of a clip, in seconds; `end` is null when it lasts to the end. */
export interface FrameInterval {
  start: number;
  end: number | null;
}

/** A synthetic H.264 clip: a coloured ground with a test-pattern square sliding across it. */
export interface TestClip {
  width: number;
  height: number;
  fps: number;
  durationSeconds: number;
  /** Background colour as six hex digits, "rrggbb". */
  background: string;
  /** The square's side (pixels, even) and its top edge (pixels). */
  box: number;
  top: number;
  /** Pixels per second the square moves rightwards, wrapping at the right edge. */
  speed: number;
  /** Pitch of an AAC sine tone (Hz), or null for a clip without audio. */
  toneHz: number | null;
}

type Tool = MediaTool;

// Filter logs and probe JSON are small; this only stops a runaway tool.
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

const run = promisify(execFile);

// Chosen per call: a changed FFMPEG_PATH applies to the next command.
async function binaryPath(tool: Tool): Promise<string> {
  try {
    return (await chooseTool(tool)).path;
  } catch (error) {
    throw new GwError(ErrorCode.Usage, error instanceof Error ? error.message : String(error), {
      hint: `install ${tool} 5 or later, or set ${TOOL_VARIABLES[tool]} to a ${tool} binary`,
      cause: error,
    });
  }
}

/** What execFile's rejection carries: an exit code or errno, a signal, the output so far. */
interface RunFailure {
  code?: number | string | null;
  signal?: NodeJS.Signals | null;
  stderr?: string;
  message: string;
}

/** Runs a tool to completion; resolves with its stdout and stderr. */
async function runTool(
  tool: Tool,
  args: readonly string[],
  options: MediaRunOptions,
  describeFailure: (reason: string, stderrTail: string) => string,
): Promise<{ stdout: string; stderr: string }> {
  const file = await binaryPath(tool);
  try {
    const { cwd, env } = commandIo();
    return await run(file, args, { maxBuffer: MAX_OUTPUT_BYTES, signal: options.signal, cwd, env });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const failure = error as RunFailure;
    if (failure.code === "ENOENT" || failure.code === "EACCES") throw notFound(tool, file, error);
    const reason =
      typeof failure.code === "number"
        ? `exited with code ${failure.code}`
        : failure.signal
          ? `killed by ${failure.signal}`
          : (failure.message.split("\n", 1)[0] ?? failure.message);
    throw new GwError(ErrorCode.Internal, describeFailure(reason, tailOf(failure.stderr ?? "")), {
      category: ErrorCategory.Internal,
      cause: error,
    });
  }
}

function notFound(tool: Tool, file: string, cause: unknown): GwError {
  const variable = TOOL_VARIABLES[tool];
  return new GwError(ErrorCode.Usage, `${tool} not found or not executable at ${file}`, {
    hint: commandIo().env[variable]
      ? `${variable} is set: point it at a ${tool} binary or unset it`
      : `reinstall gwrun's dependencies, or set ${variable} to a ${tool} binary`,
    cause,
  });
}

function tailOf(stderr: string, lines = 8): string {
  return stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .slice(-lines)
    .join("\n");
}

/**
 * Runs ffmpeg with `args` (after `-hide_banner -nostdin -nostats`) and resolves with its stderr,
 * where filters such as blackdetect log; rejects with ffmpeg's stderr tail in the message.
 */
export async function runFfmpeg(
  args: readonly string[],
  options: MediaRunOptions = {},
): Promise<string> {
  // Without banner and progress lines, the stderr tail in errors is ffmpeg's actual complaint;
  // -nostdin keeps it from reading key commands off the pipe.
  const { stderr } = await runTool(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-nostats", ...args],
    options,
    (reason, tail) => `ffmpeg failed: ${reason}${tail ? `\n${tail}` : ""}`,
  );
  return stderr;
}

// ffprobe omits what it does not know and writes most numbers as strings.
const numeric = z.union([z.number(), z.string()]).optional();
const probeOutput = z.object({
  format: z
    .object({ format_name: z.string().optional(), duration: numeric, size: numeric })
    .default({}),
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        avg_frame_rate: z.string().optional(),
        r_frame_rate: z.string().optional(),
        duration: numeric,
      }),
    )
    .default([]),
});

/** Reads a media file's format, duration (seconds), size (bytes) and streams with ffprobe. */
export async function probeMedia(file: string, options: MediaRunOptions = {}): Promise<MediaProbe> {
  const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file];
  const { stdout } = await runTool(
    "ffprobe",
    args,
    options,
    (reason, tail) => `ffprobe cannot read ${file}: ${reason}${tail ? `\n${tail}` : ""}`,
  );
  let parsed: z.infer<typeof probeOutput>;
  try {
    parsed = probeOutput.parse(JSON.parse(stdout));
  } catch (error) {
    throw new GwError(ErrorCode.Internal, `ffprobe cannot read ${file}: unexpected output`, {
      category: ErrorCategory.Internal,
      cause: error,
    });
  }
  return summarizeProbe(parsed);
}

function summarizeProbe(data: z.infer<typeof probeOutput>): MediaProbe {
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

// "N/A" and absent values become null.
function toNumber(value: number | string | undefined): number | null {
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

/** Writes the frame at `atSeconds` of a clip as a still image (format from the file name). */
export async function extractFrame(
  input: string,
  output: string,
  atSeconds: number,
  options: MediaRunOptions = {},
): Promise<void> {
  const at = String(Math.max(0, atSeconds));
  await runFfmpeg(["-ss", at, "-i", input, "-frames:v", "1", "-an", "-y", output], options);
}

/**
 * Runs ffmpeg's `blackdetect` and/or `freezedetect` over a clip (at least `minSeconds` long,
 * default 0.5 s) and returns the black and frozen stretches they report.
 */
export async function detectFrames(
  file: string,
  checks: { black: boolean; frozen: boolean; minSeconds?: number },
  options: MediaRunOptions = {},
): Promise<{ black: FrameInterval[]; frozen: FrameInterval[] }> {
  const found = { black: [] as FrameInterval[], frozen: [] as FrameInterval[] };
  const minSeconds = checks.minSeconds ?? 0.5;
  const filters = [
    ...(checks.black ? [`blackdetect=d=${minSeconds}:pix_th=0.10`] : []),
    ...(checks.frozen ? [`freezedetect=n=0.001:d=${minSeconds}`] : []),
  ];
  if (filters.length === 0) return found;
  const log = await runFfmpeg(
    ["-i", file, "-an", "-filter:v", filters.join(","), "-f", "null", "-"],
    options,
  );
  for (const line of log.split(/\r?\n/)) {
    const black = /black_start:\s*([\d.]+)\s+black_end:\s*([\d.]+)/.exec(line);
    if (black !== null) found.black.push({ start: Number(black[1]), end: Number(black[2]) });
    const freezeStart = /freeze_start:\s*([\d.]+)/.exec(line);
    if (freezeStart !== null) found.frozen.push({ start: Number(freezeStart[1]), end: null });
    const freezeEnd = /freeze_end:\s*([\d.]+)/.exec(line);
    const open = found.frozen.at(-1);
    if (freezeEnd !== null && open !== undefined) open.end = Number(freezeEnd[1]);
  }
  return found;
}

/** Encodes a `TestClip` as an H.264/yuv420p MP4 (faststart), with AAC audio when it has a tone. */
export async function encodeTestClip(
  file: string,
  clip: TestClip,
  options: MediaRunOptions = {},
): Promise<void> {
  const { width, height, fps, box, toneHz } = clip;
  const travel = width - box;
  const x = travel > 0 ? `'mod(t*${clip.speed},${travel})'` : "0";
  const lavfi = (source: string) => ["-f", "lavfi", "-i", source];
  await runFfmpeg(
    [
      ...lavfi(`color=c=0x${clip.background}:s=${width}x${height}:r=${fps}`),
      ...lavfi(`testsrc2=s=${box}x${box}:r=${fps}`),
      ...(toneHz === null ? [] : lavfi(`sine=frequency=${toneHz}:sample_rate=48000`)),
      "-y",
      ...["-filter_complex", `[0:v][1:v]overlay=x=${x}:y=${clip.top},format=yuv420p[v]`],
      ...(toneHz === null ? [] : ["-acodec", "aac", "-b:a", "96k"]),
      ...["-vcodec", "libx264", "-r", String(fps)],
      ...["-map", "[v]", ...(toneHz === null ? [] : ["-map", "2:a"])],
      ...["-preset", "ultrafast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
      ...["-t", String(clip.durationSeconds), "-f", "mp4", file],
    ],
    options,
  );
}
