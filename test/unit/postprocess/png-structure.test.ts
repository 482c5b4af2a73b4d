import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { pngStructure } from "../../../src/postprocess/png-structure.js";

/** A noisy picture, so its image data spans several IDAT chunks and every filter is used. */
async function picture(options: sharp.PngOptions, channels: 3 | 4 = 3): Promise<Buffer> {
  const [width, height] = [97, 61];
  const pixels = Buffer.alloc(width * height * channels);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7919) % 251;
  return sharp(pixels, { raw: { width, height, channels } }).png(options).toBuffer();
}

/** Where a chunk of `type` starts in a PNG. */
function chunkAt(png: Buffer, type: string): number {
  for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at))
    if (png.toString("latin1", at + 4, at + 8) === type) return at;
  throw new Error(`no ${type} chunk`);
}

describe("a PNG's structure", () => {
  it("reads every kind of PNG sharp writes as whole, with its size", async () => {
    const kinds: [string, Buffer][] = [
      ["rgb", await picture({})],
      ["rgba", await picture({}, 4)],
      ["palette", await picture({ palette: true, colours: 16 })],
      ["interlaced", await picture({ progressive: true })],
      [
        "16-bit",
        await sharp(await picture({}))
          .toColourspace("rgb16")
          .png()
          .toBuffer(),
      ],
      [
        "grey 2-bit",
        await sharp(await picture({}))
          .greyscale()
          .png({ palette: true, colours: 4 })
          .toBuffer(),
      ],
      ["small chunks", await picture({ compressionLevel: 0 })],
    ];
    for (const [kind, png] of kinds)
      expect({ kind, ...pngStructure(png) }).toEqual({ kind, width: 97, height: 61 });
    // Bit depth, colour type and interlacing: 2- and 4-bit palettes, Adam7, 16 bits.
    const headers = kinds.map(([, png]) => [png[24], png[25], png[28]].join("/"));
    expect(headers).toEqual(["8/2/0", "8/6/0", "4/3/0", "8/2/1", "16/2/0", "2/3/0", "8/2/0"]);
  });

  it("names a file cut short, a flipped byte and a missing end", async () => {
    const png = await picture({ compressionLevel: 0 });
    expect(pngStructure(png.subarray(0, png.length / 2))?.broken).toBe(
      "the file ends inside its IDAT chunk",
    );
    const flipped = Buffer.from(png);
    const at = chunkAt(png, "IDAT") + 100;
    flipped.writeUInt8(flipped.readUInt8(at) ^ 0x40, at);
    expect(pngStructure(flipped)?.broken).toBe("the IDAT chunk's checksum does not match");
    expect(pngStructure(png.subarray(0, chunkAt(png, "IEND")))?.broken).toBe(
      "the file ends before its IEND chunk",
    );
  });

  it("names image data that inflates to fewer rows than the header promises", async () => {
    const png = await picture({});
    const idat = chunkAt(png, "IDAT");
    const header = png.subarray(0, idat);
    // A valid zlib stream holding only the first 10 rows (97 pixels × 3 bytes + a filter byte).
    const data = deflateSync(Buffer.alloc(10 * (1 + 97 * 3)));
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write("IDAT", 4, "latin1");
    data.copy(chunk, 8);
    const { crc32 } = await import("node:zlib");
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
    const short = Buffer.concat([header, chunk, png.subarray(chunkAt(png, "IEND"))]);
    expect(pngStructure(short)?.broken).toMatch(/short of the rows promised$/);
  });

  it("leaves what is not a PNG to others", () => {
    expect(pngStructure(Buffer.from("GIF89a and then some more bytes of a picture"))).toBe(
      undefined,
    );
  });
});
