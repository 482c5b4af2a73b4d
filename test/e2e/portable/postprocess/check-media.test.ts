import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import type { ExpectedOutputs } from "../../../../src/families/index.js";
import { runFfmpeg } from "../../../../src/media/index.js";
import { checkClip } from "../../../../src/postprocess/check-clip.js";
import { checkImage } from "../../../../src/postprocess/check-image.js";
import { writeMp4 } from "../../../../src/sim/media-clip.js";
import { tempDir } from "../../../helpers/manifest.js";

const clip = (durationSeconds: number, audio: boolean | null = null): ExpectedOutputs => ({
  kind: "video",
  count: 1,
  exact: true,
  sizes: [{ width: 320, height: 180 }],
  durationSeconds,
  audio,
});

/** A clip that is black for its first `blackSeconds`, then one still grey frame to the end. */
async function blackThenStill(file: string, blackSeconds: number, seconds: number): Promise<void> {
  await runFfmpeg([
    ...["-f", "lavfi", "-i", `color=c=black:s=320x180:r=12:d=${blackSeconds}`],
    ...["-f", "lavfi", "-i", `color=c=0x808080:s=320x180:r=12:d=${seconds - blackSeconds}`],
    ...["-filter_complex", "[0:v][1:v]concat=n=2:v=1,format=yuv420p[v]", "-map", "[v]"],
    ...["-vcodec", "libx264", "-preset", "ultrafast", "-f", "mp4", "-y", file],
  ]);
}

describe("clip checks", () => {
  it("finds black and frozen stretches only when the checks ask for them", async () => {
    const file = path.join(tempDir(), "dark.mp4");
    await blackThenStill(file, 1.5, 4);
    const plain = await checkClip(file, "dark.mp4", "video/mp4", clip(4), {}, {});
    expect(plain.problems).toEqual([]);
    const asked = await checkClip(
      file,
      "dark.mp4",
      "video/mp4",
      clip(4),
      {},
      {
        black_frames: true,
        frozen_frames: true,
      },
    );
    expect(asked.problems).toHaveLength(2);
    expect(asked.problems[0]).toMatch(/^dark\.mp4 has black frames from 0\.0 s to 1\.5 s$/);
    expect(asked.problems[1]).toMatch(/^dark\.mp4 is frozen from 0\.0 s to /);
  });

  it("passes a simulator clip under every check, and names a missing audio track", async () => {
    const file = path.join(tempDir(), "sim.mp4");
    await writeMp4(file, { width: 320, height: 180, durationSeconds: 3, audio: false, seed: "s" });
    const checks = { black_frames: true, frozen_frames: true };
    const silent = await checkClip(file, "sim.mp4", "video/mp4", clip(3), {}, checks);
    expect(silent.problems).toEqual([]);
    expect(silent.details).toMatchObject({ codec: "h264", width: 320, height: 180, audio: null });
    const needsAudio = await checkClip(file, "sim.mp4", "video/mp4", clip(3, true), {}, {});
    expect(needsAudio.problems).toEqual(["sim.mp4 has no audio track, audio was requested"]);
  });

  it("names a clip of the wrong size or aspect, and one that is not a clip", async () => {
    const dir = tempDir({ "broken.mp4": "not a video" });
    const file = path.join(dir, "wide.mp4");
    await writeMp4(file, { width: 320, height: 180, durationSeconds: 1, audio: false, seed: "w" });
    const tall = { ...clip(1), sizes: null };
    const aspect = await checkClip(
      file,
      "wide.mp4",
      "video/mp4",
      tall,
      { aspect_ratio: "9:16" },
      {},
    );
    expect(aspect.problems).toEqual([
      "wide.mp4 is 320x180, expected aspect 9:16 for aspect_ratio 9:16",
    ]);
    const sized = { ...clip(1), sizes: [{ width: 1280, height: 720 }] };
    const body = { resolution: "720p", duration: 1 };
    expect((await checkClip(file, "wide.mp4", "video/mp4", sized, body, {})).problems).toEqual([
      "wide.mp4 is 320x180, expected 1280x720 for resolution 720p, duration 1",
    ]);
    const broken = await checkClip(
      path.join(dir, "broken.mp4"),
      "broken.mp4",
      "video/mp4",
      clip(1),
      {},
      {},
    );
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]).toMatch(/^broken\.mp4 is not a readable clip/);
  });
});

describe("image checks", () => {
  const image: ExpectedOutputs = {
    kind: "image",
    count: 1,
    exact: true,
    sizes: [{ width: 64, height: 36 }],
  };

  it("names a picture whose format is not the one served", async () => {
    const file = path.join(tempDir(), "a.png");
    await sharp({ create: { width: 64, height: 36, channels: 3, background: "#888" } })
      .png()
      .toFile(file);
    expect((await checkImage(file, "a.png", "image/png", image, {}, true)).problems).toEqual([]);
    expect((await checkImage(file, "a.png", "image/jpeg", image, {}, true)).problems).toEqual([
      "a.png is a png image, served as image/jpeg",
    ]);
  });

  it("names a picture cut short, whose header still reads", async () => {
    const png = await sharp({ create: { width: 64, height: 36, channels: 3, background: "#888" } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const file = path.join(tempDir({ "cut.png": png.subarray(0, png.length / 2) }), "cut.png");
    const { problems } = await checkImage(file, "cut.png", "image/png", image, {}, true);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^cut\.png does not decode: /);
  });

  it("accepts any listed alternative size and names the request's shape when none fits", async () => {
    const file = path.join(tempDir(), "b.png");
    await sharp({ create: { width: 48, height: 48, channels: 3, background: "#888" } })
      .png()
      .toFile(file);
    const either = {
      ...image,
      sizes: [
        { width: 64, height: 36 },
        { width: 48, height: 48 },
      ],
    };
    expect((await checkImage(file, "b.png", "image/png", either, {}, true)).problems).toEqual([]);
    expect(
      (await checkImage(file, "b.png", "image/png", image, { size: "16:9" }, true)).problems,
    ).toEqual(["b.png is 48x48, expected 64x36 for size 16:9"]);
    const unstated = { ...image, sizes: null };
    expect((await checkImage(file, "b.png", "image/png", unstated, {}, true)).problems).toEqual([]);
  });
});
