import type { Metadata } from "sharp";
import { coerceError } from "../core/errors.js";
import { readRecordedSync } from "../core/file-gate.js";
import type { ExpectedOutputs, RequestBody } from "../families/index.js";
import { loadSharp } from "../media/index.js";
import { askedFor, sizesText } from "./expected.js";
import { pngStructure } from "./png-structure.js";

/** sharp's format name for each image Content-Type a gateway serves. */
const FORMAT_BY_TYPE: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "heif",
  "image/bmp": "bmp",
};

export interface CheckResult {
  problems: string[];
  details: Record<string, unknown>;
}

/**
 * An image is the format its Content-Type says and has one of the pixel sizes the family
 * promises for the request (any size when it promises none); with `decode`, also that the whole
 * picture decodes (making a thumbnail checks that otherwise). `name` is the file's name.
 */
export async function checkImage(
  file: string,
  name: string,
  contentType: string | null,
  expected: ExpectedOutputs,
  body: RequestBody,
  decode: boolean,
): Promise<CheckResult> {
  const small = decode ? smallPng(file) : undefined;
  if (small !== undefined) return judge(name, contentType, expected, body, small);
  const sharp = await loadSharp();
  const image = sharp(file);
  let meta: Metadata;
  try {
    meta = await image.metadata();
  } catch (error) {
    return {
      problems: [`${name} is not a readable image: ${coerceError(error).message}`],
      details: {},
    };
  }
  const result = judge(name, contentType, expected, body, {
    format: meta.format,
    width: meta.width ?? 0,
    height: meta.height ?? 0,
  });
  if (decode) {
    try {
      await image.resize(32).raw().toBuffer();
    } catch (error) {
      result.problems.push(`${name} does not decode: ${coerceError(error).message}`);
    }
  }
  return result;
}

/** PNGs up to this size are checked in this thread: cheaper than a trip through libvips. */
const SMALL_PNG_BYTES = 256 * 1024;

interface Measured {
  format: string | undefined;
  width: number;
  height: number;
  /** Why it did not decode, when it did not. */
  broken?: string;
}

/**
 * A small PNG proved whole by its structure (`pngStructure`), without sharp; undefined for
 * anything else, which sharp checks.
 */
function smallPng(file: string): Measured | undefined {
  const data = readSmallFile(file, SMALL_PNG_BYTES);
  const structure = data === undefined ? undefined : pngStructure(data);
  return structure === undefined ? undefined : { format: "png", ...structure };
}

/** The file's bytes when it has at most `limit`. */
function readSmallFile(file: string, limit: number): Buffer | undefined {
  const read = readRecordedSync(file, limit);
  return "problem" in read ? undefined : read.bytes;
}

/** Format and pixel size against what was served and what the family promised. */
function judge(
  name: string,
  contentType: string | null,
  expected: ExpectedOutputs,
  body: RequestBody,
  measured: Measured,
): CheckResult {
  const { format, width, height } = measured;
  const details = { format, width, height };
  const problems: string[] = [];
  if (measured.broken !== undefined) problems.push(`${name} does not decode: ${measured.broken}`);
  const served = contentType === null ? undefined : FORMAT_BY_TYPE[contentType];
  if (served !== undefined && served !== format)
    problems.push(`${name} is a ${format} image, served as ${contentType}`);
  const sizes = expected.sizes;
  if (sizes !== null && !sizes.some((size) => size.width === width && size.height === height))
    problems.push(
      `${name} is ${width}x${height}, expected ${sizesText(sizes)} for ${askedFor(body)}`,
    );
  return { problems, details };
}
