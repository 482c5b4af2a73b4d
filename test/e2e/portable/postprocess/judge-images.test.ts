import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { encodeTestClip } from "../../../../src/media/index.js";
import { CLIP_FRAMES, judgeImages } from "../../../../src/postprocess/judge-images.js";
import type { OutputRow } from "../../../../src/store/index.js";
import { tempDir } from "../../../helpers/manifest.js";

/**
 * What a judge is shown of an output — the link while it works, else the
 * picture's bytes within the format's rules; a clip's poster and a few frames.
 */

const NOW = Date.UTC(2026, 10, 27);
const HOUR = 3_600_000;

function output(
  file: string,
  contentType: string,
  url: string | null,
  expiresAt: number | null,
): OutputRow & { path: string } {
  return {
    job_key: "k",
    idx: 0,
    url,
    expires_at: expiresAt,
    state: "downloaded",
    path: file,
    bytes: null,
    sha256: null,
    content_type: contentType,
    reason: null,
    check_state: null,
    checks: null,
    thumbnail: null,
    poster: null,
    downloaded_at: null,
  };
}

async function picture(): Promise<string> {
  const file = path.join(tempDir(), "shot.png");
  await sharp({ create: { width: 64, height: 48, channels: 3, background: "#c86432" } })
    .png()
    .toFile(file);
  return file;
}

describe("what a judge is shown", () => {
  it("a picture whose link works for a while yet is sent by its link on responses and messages", async () => {
    const file = await picture();
    const row = output(file, "image/png", "https://cdn.example.com/shot.png", NOW + 2 * HOUR);
    for (const endpoint of ["responses", "messages"] as const)
      expect(await judgeImages(row, null, { endpoint }, NOW)).toEqual([
        { kind: "url", url: row.url },
      ]);
  });

  it("an expired link (or native, which takes bytes) sends the picture as it is on disk", async () => {
    const file = await picture();
    const expired = output(file, "image/png", "https://cdn.example.com/shot.png", NOW - HOUR);
    const [image] = await judgeImages(expired, null, { endpoint: "responses" }, NOW);
    expect(image).toMatchObject({ kind: "data", mediaType: "image/png" });
    const bytes = Buffer.from(image?.kind === "data" ? image.base64 : "", "base64");
    expect((await sharp(bytes).metadata()).width).toBe(64);
    const live = output(file, "image/png", "https://cdn.example.com/shot.png", NOW + 2 * HOUR);
    expect(await judgeImages(live, null, { endpoint: "native" }, NOW)).toMatchObject([
      { kind: "data" },
    ]);
  });

  it("a picture in a format the formats do not take is re-encoded as a JPEG", async () => {
    const file = path.join(tempDir(), "shot.tiff");
    await sharp({ create: { width: 32, height: 32, channels: 3, background: "#000" } })
      .tiff()
      .toFile(file);
    const [image] = await judgeImages(
      output(file, "image/tiff", null, null),
      null,
      { endpoint: "responses" },
      NOW,
    );
    expect(image).toMatchObject({ kind: "data", mediaType: "image/jpeg" });
  });

  it(`a clip is shown as its poster and ${CLIP_FRAMES} frames, as JPEG bytes`, async () => {
    const dir = tempDir();
    const clip = path.join(dir, "teaser.mp4");
    await encodeTestClip(clip, {
      width: 96,
      height: 64,
      fps: 10,
      durationSeconds: 2,
      background: "203040",
      box: 16,
      top: 8,
      speed: 20,
      toneHz: null,
    });
    const poster = await picture();
    const images = await judgeImages(
      output(clip, "video/mp4", "https://cdn.example.com/t.mp4", NOW + HOUR),
      poster,
      { endpoint: "responses" },
      NOW,
    );
    expect(images).toHaveLength(1 + CLIP_FRAMES);
    for (const image of images)
      expect(image).toMatchObject({ kind: "data", mediaType: "image/jpeg" });
  });
});
