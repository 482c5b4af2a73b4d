import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { sha256 } from "../../../../src/core/hash.js";
import { probeMedia, runFfmpeg } from "../../../../src/media/index.js";
import { type ClipSpec, type ImageSpec, MediaRenderer } from "../../../../src/sim/media.js";

const root = mkdtempSync(path.join(os.tmpdir(), "gwrun-media-test-"));
const cacheDir = path.join(root, "cache");
const renderer = new MediaRenderer({ cacheDir });

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function image(width: number, height: number, seed = "picture"): ImageSpec {
  return { kind: "image", width, height, seed };
}

function clip(width: number, height: number, durationSeconds: number, audio: boolean): ClipSpec {
  return { kind: "video", width, height, durationSeconds, audio, seed: `clip-${width}-${audio}` };
}

/** ffmpeg's stderr while decoding `input` (ffmpeg's input arguments) through `filters`. */
function filterLog(input: string[], filters: string[]): Promise<string> {
  return runFfmpeg([...input, "-an", "-filter:v", filters.join(","), "-f", "null", "-"]);
}

describe("MediaRenderer images", () => {
  it("renders a PNG of exactly the requested size, odd sizes included", async () => {
    const file = await renderer.render(image(941, 1672));
    const metadata = await sharp(file.path).metadata();
    expect(metadata).toMatchObject({ format: "png", width: 941, height: 1672 });
    expect(file.contentType).toBe("image/png");
    expect(file.bytes).toBe(statSync(file.path).size);
    expect(path.dirname(file.path)).toBe(cacheDir);
  });

  it("draws a real picture that changes with the seed", async () => {
    const first = await renderer.render(image(320, 240, "one"));
    const second = await renderer.render(image(320, 240, "two"));
    expect(sha256(readFileSync(first.path))).not.toBe(sha256(readFileSync(second.path)));
    const { channels } = await sharp(first.path).stats();
    expect(Math.max(...channels.map((channel) => channel.stdev))).toBeGreaterThan(10);
  });

  it("serves a spec rendered before from the cache folder, even to a new renderer", async () => {
    const spec = image(640, 480, "cached");
    const first = await renderer.render(spec);
    const before = statSync(first.path);
    const again = await new MediaRenderer({ cacheDir }).render({ ...spec });
    expect(again).toEqual(first);
    expect(statSync(again.path).mtimeMs).toBe(before.mtimeMs);
  });

  it("renders one file for concurrent calls of one spec", async () => {
    const folder = path.join(root, "concurrent");
    const shared = new MediaRenderer({ cacheDir: folder });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => shared.render(image(800, 600, "same"))),
    );
    expect(new Set(results.map((result) => result.path)).size).toBe(1);
    expect(readdirSync(folder)).toEqual([path.basename(results[0]!.path)]);
  });

  it("keeps a small picture's bytes in memory and serves a large one from its file", async () => {
    const folder = path.join(root, "memory");
    const memory = new MediaRenderer({ cacheDir: folder });
    const small = await memory.render(image(64, 64, "small"));
    expect(small.data).toEqual(readFileSync(small.path));
    // Kept: served the same even once the cache file is gone.
    rmSync(small.path);
    expect((await memory.render(image(64, 64, "small"))).data).toEqual(small.data);
    const large = await memory.render(image(1600, 1200, "large"));
    expect(large.bytes).toBeGreaterThan(256 * 1024);
    expect(large.data).toBeUndefined();
  });
});

describe("MediaRenderer clips", () => {
  it.each([
    clip(320, 180, 2, true),
    clip(320, 180, 1.5, false),
    clip(1280, 720, 1, true),
  ])("renders a $width×$height H.264 MP4 of $durationSeconds s (audio: $audio)", async (spec) => {
    const file = await renderer.render(spec);
    expect(file.contentType).toBe("video/mp4");
    const probe = await probeMedia(file.path);
    expect(probe.formatName).toContain("mp4");
    expect(Math.abs((probe.durationSeconds ?? 0) - spec.durationSeconds)).toBeLessThanOrEqual(0.1);
    const video = probe.streams.filter((stream) => stream.type === "video");
    expect(video).toEqual([
      expect.objectContaining({ codec: "h264", width: spec.width, height: spec.height }),
    ]);
    const audio = probe.streams.filter((stream) => stream.type === "audio");
    expect(audio.map((stream) => stream.codec)).toEqual(spec.audio ? ["aac"] : []);
  });

  it("moves: ffmpeg finds neither black nor frozen frames", async () => {
    const file = await renderer.render(clip(320, 180, 2, true));
    const log = await filterLog(["-i", file.path], ["blackdetect=d=0.1", "freezedetect=d=0.5"]);
    expect(log).not.toMatch(/black_start|freeze_start/);
    // The same check does see a black clip.
    const black = await filterLog(
      ["-f", "lavfi", "-i", "color=c=black:s=64x64:r=12:d=1"],
      ["blackdetect=d=0.1"],
    );
    expect(black).toMatch(/black_start/);
  });

  it("refuses an odd clip size", async () => {
    await expect(renderer.render(clip(321, 180, 1, false))).rejects.toThrow(/321x180 must be even/);
  });

  it("fails with the path of a missing FFMPEG_PATH binary, then retries once it is fixed", async () => {
    const spec: ClipSpec = { ...clip(160, 90, 0.5, false), seed: "override" };
    const missing = path.join(root, "no-such-ffmpeg");
    const saved = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = missing;
    try {
      await expect(renderer.render(spec)).rejects.toThrow(missing);
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = saved;
    }
    const file = await renderer.render(spec);
    expect((await probeMedia(file.path)).streams[0]?.codec).toBe("h264");
  });
});
