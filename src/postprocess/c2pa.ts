import { type ReadAt, walkRecordedSync } from "../core/file-gate.js";

/**
 * Whether a file carries a C2PA manifest, read from its structure alone (no dependency, no
 * validation of the signature): JUMBF in a JPEG's APP11 segments, a `caBX` chunk in a PNG, a
 * `C2PA` chunk in a WebP's RIFF, a C2PA `uuid` box (or a top-level `jumb` box) in MP4/ISO BMFF.
 * Only headers are read, a window at a time and synchronously (every output of a run is
 * looked at), so a large clip costs as little as a picture.
 */

/** The C2PA manifest store's `uuid` box type in ISO BMFF (C2PA spec, "Embedding in BMFF"). */
const C2PA_UUID = "d8fec3d61b0e483c92975828877ec481";
/** Structures walked before giving up: a broken file must not loop for long. */
const MOST_STEPS = 100_000;

/** Whether `file` carries a C2PA manifest; false for a file of another format or unreadable. */
export function hasC2pa(file: string): boolean {
  try {
    const found = walkRecordedSync(file, c2paIn);
    return found === true;
  } catch {
    return false;
  }
}

/** Whether the bytes of a whole file carry a C2PA manifest (see `hasC2pa`). */
export function bytesHaveC2pa(bytes: Buffer): boolean {
  return c2paIn((at, length) => bytes.subarray(at, at + length), bytes.length);
}

function c2paIn(readAt: ReadAt, size: number): boolean {
  const head = readAt(0, 12);
  if (head.length < 12) return false;
  if (head[0] === 0xff && head[1] === 0xd8) return jpeg(readAt, size);
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return png(readAt, size);
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP")
    return webp(readAt, size);
  if (head.toString("latin1", 4, 8) === "ftyp") return bmff(readAt, size);
  return false;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** JPEG: APP11 (0xFFEB) segments whose payload is JPEG-XT "JP" wrapping a JUMBF `jumb` box. */
function jpeg(readAt: ReadAt, size: number): boolean {
  let at = 2;
  for (let step = 0; step < MOST_STEPS && at + 4 <= size; step += 1) {
    const marker = readAt(at, 4);
    if (marker[0] !== 0xff) return false;
    const code = marker[1] as number;
    // Start of scan or end of image: the metadata segments are all before.
    if (code === 0xda || code === 0xd9) return false;
    const length = marker.readUInt16BE(2);
    if (code === 0xeb && length >= 18) {
      // "JP", instance (2), sequence number (4), then the box: its length (4) and type.
      const payload = readAt(at + 4, 16);
      if (
        payload.toString("latin1", 0, 2) === "JP" &&
        payload.toString("latin1", 12, 16) === "jumb"
      )
        return true;
    }
    at += 2 + length;
  }
  return false;
}

/** PNG: a `caBX` chunk. */
function png(readAt: ReadAt, size: number): boolean {
  let at = 8;
  for (let step = 0; step < MOST_STEPS && at + 8 <= size; step += 1) {
    const header = readAt(at, 8);
    const type = header.toString("latin1", 4, 8);
    if (type === "caBX") return true;
    if (type === "IEND") return false;
    at += 12 + header.readUInt32BE(0);
  }
  return false;
}

/** WebP: a `C2PA` chunk among the RIFF's chunks. */
function webp(readAt: ReadAt, size: number): boolean {
  let at = 12;
  for (let step = 0; step < MOST_STEPS && at + 8 <= size; step += 1) {
    const header = readAt(at, 8);
    if (header.toString("latin1", 0, 4) === "C2PA") return true;
    const length = header.readUInt32LE(4);
    at += 8 + length + (length % 2);
  }
  return false;
}

/** ISO BMFF: a top-level `uuid` box of the C2PA type, or a bare `jumb` box. */
function bmff(readAt: ReadAt, size: number): boolean {
  let at = 0;
  for (let step = 0; step < MOST_STEPS && at + 8 <= size; step += 1) {
    const header = readAt(at, 32);
    if (header.length < 8) return false;
    let length = header.readUInt32BE(0);
    const type = header.toString("latin1", 4, 8);
    let body = 8;
    if (length === 1 && header.length >= 16) {
      length = Number(header.readBigUInt64BE(8));
      body = 16;
    } else if (length === 0) length = size - at;
    if (type === "jumb") return true;
    if (type === "uuid" && header.toString("hex", body, body + 16) === C2PA_UUID) return true;
    if (length < 8) return false;
    at += length;
  }
  return false;
}
