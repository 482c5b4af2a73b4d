import { writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { bytesHaveC2pa, hasC2pa } from "../../src/postprocess/index.js";
import { box, jumbf, withCaBX } from "../helpers/c2pa-fixtures.js";
import { tempDir } from "../helpers/manifest.js";

/** C2PA manifests found by a file's structure: fixtures built here, byte by byte. */

/** A PNG with a `caBX` chunk before its image data. */
async function pngWithC2pa(): Promise<Buffer> {
  const png = await sharp({
    create: { width: 4, height: 4, channels: 3, background: "#888" },
  })
    .png()
    .toBuffer();
  return withCaBX(png);
}

/** A JPEG with an APP11 segment: "JP", instance, sequence number, then the JUMBF box. */
async function jpegWithC2pa(): Promise<Buffer> {
  const jpeg = await sharp({
    create: { width: 4, height: 4, channels: 3, background: "#888" },
  })
    .jpeg()
    .toBuffer();
  const payload = Buffer.concat([
    Buffer.from("JP", "latin1"),
    Buffer.from([0, 1, 0, 0, 0, 1]),
    jumbf(),
  ]);
  const head = Buffer.from([0xff, 0xeb, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

function riffWithChunk(type: string): Buffer {
  const chunk = Buffer.alloc(8 + 6);
  chunk.write(type, 0, "latin1");
  chunk.writeUInt32LE(5, 4);
  const vp8 = Buffer.alloc(8 + 4);
  vp8.write("VP8L", 0, "latin1");
  vp8.writeUInt32LE(4, 4);
  const body = Buffer.concat([Buffer.from("WEBP", "latin1"), vp8, chunk]);
  const head = Buffer.alloc(8);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

function mp4With(extra: Buffer[]): Buffer {
  return Buffer.concat([
    box("ftyp", Buffer.from("isom\0\0\0\0isom", "latin1")),
    ...extra,
    box("mdat", Buffer.alloc(16)),
  ]);
}
const C2PA_UUID = Buffer.from("d8fec3d61b0e483c92975828877ec481", "hex");

describe("C2PA detection", () => {
  it("finds the caBX chunk of a PNG and nothing in a plain one", async () => {
    const plain = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#888" } })
      .png()
      .toBuffer();
    expect(bytesHaveC2pa(await pngWithC2pa())).toBe(true);
    expect(bytesHaveC2pa(plain)).toBe(false);
    // The fixture is still a picture sharp reads.
    expect((await sharp(await pngWithC2pa()).metadata()).width).toBe(4);
  });

  it("finds JUMBF in a JPEG's APP11 segment and nothing in a plain one", async () => {
    const plain = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#888" } })
      .jpeg()
      .toBuffer();
    expect(bytesHaveC2pa(await jpegWithC2pa())).toBe(true);
    expect(bytesHaveC2pa(plain)).toBe(false);
    expect((await sharp(await jpegWithC2pa()).metadata()).width).toBe(4);
  });

  it("finds the C2PA chunk of a WebP and the C2PA uuid box of an MP4", async () => {
    expect(bytesHaveC2pa(riffWithChunk("C2PA"))).toBe(true);
    expect(bytesHaveC2pa(riffWithChunk("EXIF"))).toBe(false);
    expect(bytesHaveC2pa(mp4With([box("uuid", Buffer.concat([C2PA_UUID, jumbf()]))]))).toBe(true);
    expect(bytesHaveC2pa(mp4With([box("uuid", Buffer.alloc(20))]))).toBe(false);
    expect(bytesHaveC2pa(mp4With([]))).toBe(false);
  });

  it("reads a file's structure from disk, and says false for what it cannot read", async () => {
    const dir = tempDir();
    const signed = path.join(dir, "signed.png");
    writeFileSync(signed, await pngWithC2pa());
    const broken = path.join(dir, "broken.png");
    writeFileSync(broken, (await pngWithC2pa()).subarray(0, 20));
    expect(hasC2pa(signed)).toBe(true);
    expect(hasC2pa(broken)).toBe(false);
    expect(hasC2pa(path.join(dir, "gone.png"))).toBe(false);
  });
});
