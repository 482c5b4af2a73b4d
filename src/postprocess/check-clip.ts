import { coerceError } from "../core/errors.js";
import type { ExpectedOutputs, RequestBody } from "../families/index.js";
import type { JobChecks } from "../manifest/index.js";
import { detectFrames, type FrameInterval, probeMedia } from "../media/index.js";
import type { CheckResult } from "./check-image.js";
import { askedFor, sizesText } from "./expected.js";

/** ffprobe format names a clip served with each Content-Type must have. */
const CONTAINER_BY_TYPE: Readonly<Record<string, string>> = {
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
};

const VIDEO_CODECS = new Set(["h264", "hevc", "vp8", "vp9", "av1", "prores", "mpeg4"]);

/** Seconds a clip may differ from the request when the manifest does not say: 0.5 s or 10 %. */
export function defaultTolerance(seconds: number): number {
  return Math.max(0.5, seconds * 0.1);
}

/** width/height may differ from the requested ratio by this fraction (encoders round sides). */
const RATIO_SLACK = 0.02;

/**
 * A clip, with ffprobe: container matches its Content-Type, a known video codec, duration within
 * the tolerance of the request, the promised pixel size (or the requested aspect), an audio
 * track when audio was asked for; black or frozen stretches when the manifest's checks ask.
 */
export async function checkClip(
  file: string,
  name: string,
  contentType: string | null,
  expected: ExpectedOutputs,
  body: RequestBody,
  checks: JobChecks,
): Promise<CheckResult & { durationSeconds: number | null }> {
  let probe: Awaited<ReturnType<typeof probeMedia>>;
  try {
    probe = await probeMedia(file);
  } catch (error) {
    const reason = coerceError(error).message.split("\n").at(-1) ?? "";
    return {
      problems: [`${name} is not a readable clip: ${reason}`],
      details: {},
      durationSeconds: null,
    };
  }
  const video = probe.streams.find((stream) => stream.type === "video");
  const audio = probe.streams.find((stream) => stream.type === "audio");
  const duration = probe.durationSeconds ?? video?.durationSeconds ?? null;
  const width = video?.width ?? 0;
  const height = video?.height ?? 0;
  const details = {
    container: probe.formatName,
    codec: video?.codec ?? null,
    width,
    height,
    duration_s: duration,
    audio: audio?.codec ?? null,
  };
  const problems: string[] = [];
  const container = contentType === null ? undefined : CONTAINER_BY_TYPE[contentType];
  if (container !== undefined && !probe.formatName.split(",").includes(container))
    problems.push(`${name} is a ${probe.formatName} file, served as ${contentType}`);
  if (video === undefined) {
    problems.push(`${name} has no video stream`);
    return { problems, details, durationSeconds: duration };
  }
  if (!VIDEO_CODECS.has(video.codec ?? ""))
    problems.push(
      `${name} has video codec ${video.codec ?? "unknown"}, expected H.264, H.265, VP9 or AV1`,
    );
  const requested = expected.durationSeconds;
  if (requested !== undefined && requested !== null) {
    const tolerance = checks.duration_tolerance ?? defaultTolerance(requested);
    if (duration === null || Math.abs(duration - requested) > tolerance)
      problems.push(
        `${name} lasts ${duration === null ? "an unknown time" : `${duration.toFixed(1)} s`}, expected ${requested} s ± ${tolerance} s for ${askedFor(body, ["duration"])}`,
      );
  }
  problems.push(...shapeProblems(name, width, height, expected, body));
  if (expected.audio === true && audio === undefined)
    problems.push(`${name} has no audio track, audio was requested`);
  if (checks.black_frames === true || checks.frozen_frames === true) {
    const found = await detectFrames(file, {
      black: checks.black_frames === true,
      frozen: checks.frozen_frames === true,
    });
    if (found.black.length > 0)
      problems.push(`${name} has black frames ${intervalsText(found.black)}`);
    if (found.frozen.length > 0) problems.push(`${name} is frozen ${intervalsText(found.frozen)}`);
  }
  return { problems, details, durationSeconds: duration };
}

function shapeProblems(
  name: string,
  width: number,
  height: number,
  expected: ExpectedOutputs,
  body: RequestBody,
): string[] {
  const sizes = expected.sizes;
  if (sizes !== null) {
    return sizes.some((size) => size.width === width && size.height === height)
      ? []
      : [`${name} is ${width}x${height}, expected ${sizesText(sizes)} for ${askedFor(body)}`];
  }
  const ratio = /^(\d+):(\d+)$/.exec(
    typeof body.aspect_ratio === "string" ? body.aspect_ratio : "",
  );
  if (ratio === null || height === 0) return [];
  const wanted = Number(ratio[1]) / Number(ratio[2]);
  return Math.abs(width / height / wanted - 1) <= RATIO_SLACK
    ? []
    : [
        `${name} is ${width}x${height}, expected aspect ${ratio[1]}:${ratio[2]} for ${askedFor(body)}`,
      ];
}

/** "from 0.0 s to 2.5 s, from 4.0 s to the end" */
function intervalsText(intervals: readonly FrameInterval[]): string {
  return intervals
    .map(
      ({ start, end }) =>
        `from ${start.toFixed(1)} s to ${end === null ? "the end" : `${end.toFixed(1)} s`}`,
    )
    .join(", ");
}
