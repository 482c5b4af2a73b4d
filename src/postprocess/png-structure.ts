import { crc32, inflateSync } from "node:zlib";
import { coerceError } from "../core/errors.js";

/** What reading a PNG's structure found: its size, and why it would not decode, if it would not. */
export interface PngStructure {
  width: number;
  height: number;
  broken?: string;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Samples per pixel by colour type (the PNG specification's table 11.1). */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Adam7 passes: first column and row, then the column and row steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * Whether a PNG decodes whole, proved without building its pixels: every chunk is complete with
 * a good checksum, the image data inflates (zlib checks its own sum) to exactly the rows the
 * header promises, and every row names a filter that exists. Reconstructing pixels from such
 * rows cannot fail, so a decoder would read every one. Undefined when `data` is not a PNG.
 */
export function pngStructure(data: Buffer): PngStructure | undefined {
  if (data.length < 33 || !data.subarray(0, 8).equals(SIGNATURE)) return undefined;
  if (data.toString("latin1", 12, 16) !== "IHDR") return undefined;
  const width = data.readUInt32BE(16);
  const height = data.readUInt32BE(20);
  const broken = (reason: string) => ({ width, height, broken: reason });
  const image: Buffer[] = [];
  let ended = false;
  let palette = false;
  for (let at = 8; at < data.length && !ended; ) {
    if (at + 12 > data.length) return broken(`the file ends inside a chunk header at byte ${at}`);
    const length = data.readUInt32BE(at);
    const type = data.toString("latin1", at + 4, at + 8);
    const end = at + 12 + length;
    if (end > data.length) return broken(`the file ends inside its ${type} chunk`);
    const stored = data.readUInt32BE(end - 4);
    if (crc32(data.subarray(at + 4, end - 4)) !== stored)
      return broken(`the ${type} chunk's checksum does not match`);
    if (type === "IDAT") image.push(data.subarray(at + 8, end - 4));
    else if (type === "PLTE") palette = true;
    else if (type === "IEND") ended = true;
    at = end;
  }
  if (!ended) return broken("the file ends before its IEND chunk");
  const depth = data[24] as number;
  const channels = CHANNELS[data[25] as number];
  if (channels === undefined || ![1, 2, 4, 8, 16].includes(depth))
    return broken(`colour type ${data[25]} with bit depth ${depth} is not a PNG format`);
  if (data[25] === 3 && !palette) return broken("a palette image without its PLTE chunk");
  let rows: Buffer;
  try {
    rows = inflateSync(Buffer.concat(image));
  } catch (error) {
    return broken(`its image data does not inflate: ${coerceError(error).message}`);
  }
  const bits = channels * depth;
  const passes = data[28] === 1 ? ADAM7 : ([[0, 0, 1, 1]] as const);
  let at = 0;
  for (const [column, row, columnStep, rowStep] of passes) {
    const passWidth = Math.ceil((width - column) / columnStep);
    const passHeight = Math.ceil((height - row) / rowStep);
    if (passWidth <= 0 || passHeight <= 0) continue;
    const stride = 1 + Math.ceil((passWidth * bits) / 8);
    for (let line = 0; line < passHeight; line++, at += stride) {
      if (at + stride > rows.length)
        return broken(`its image data holds ${rows.length} bytes, short of the rows promised`);
      if ((rows[at] as number) > 4) return broken(`row ${line} names filter ${rows[at]}`);
    }
  }
  if (at !== rows.length) return broken(`its image data holds ${rows.length - at} extra bytes`);
  return { width, height };
}
