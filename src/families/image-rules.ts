import { loadSharp } from "../media/index.js";
import { formatNotTaken, takesFormat } from "./common.js";
import type { ImageInputRule } from "./types.js";

/**
 * An image's header against a field's input rules: format, bytes, sides, ratio, pixels. Local
 * files and Data URIs are both read here, so both are held to the same rules in the same words.
 */

export const MB = 1024 * 1024;

/** What the rules look at: read from the header, the pixels are never decoded. */
export interface ImageFacts {
  bytes: number;
  /** sharp's name: jpeg, png, webp, gif, bmp… */
  format: string;
  width: number;
  height: number;
}

/** The format, width and height of an image's bytes; undefined when they are no image sharp reads. */
export async function imageSize(
  data: Buffer,
): Promise<{ format: string; width: number; height: number } | undefined> {
  // sharp does not decode BMP; its header states the size plainly.
  if (data.length > 26 && data.toString("latin1", 0, 2) === "BM") {
    return {
      format: "bmp",
      width: Math.abs(data.readInt32LE(18)),
      height: Math.abs(data.readInt32LE(22)),
    };
  }
  try {
    const sharp = await loadSharp();
    const meta = await sharp(data).metadata();
    if (meta.format === undefined || meta.width === undefined || meta.height === undefined)
      return undefined;
    return { format: meta.format, width: meta.width, height: meta.height };
  } catch {
    return undefined;
  }
}

/** The first rule of `rule` the image breaks, in the words a message shows after its name. */
export function brokenImageRule(
  image: ImageFacts,
  rule: ImageInputRule,
): { rule: string; message: string } | undefined {
  const { width, height, format, bytes } = image;
  if (rule.formats !== undefined && !takesFormat(rule.formats, format)) {
    return {
      rule: "image-format",
      message: formatNotTaken(`a ${format.toUpperCase()} image`, rule.formats),
    };
  }
  if (rule.maxBytes !== undefined && bytes > rule.maxBytes) {
    return {
      rule: "image-bytes",
      message: `is ${(bytes / MB).toFixed(1)} MB; at most ${(rule.maxBytes / MB).toFixed(0)} MB`,
    };
  }
  const sides = `${width}×${height}`;
  if (rule.minSide !== undefined && Math.min(width, height) < rule.minSide) {
    return {
      rule: "image-size",
      message: `is ${sides} px; each side must be at least ${rule.minSide} px`,
    };
  }
  if (rule.maxSide !== undefined && Math.max(width, height) > rule.maxSide) {
    return {
      rule: "image-size",
      message: `is ${sides} px; each side must be at most ${rule.maxSide} px`,
    };
  }
  if (rule.minShortSide !== undefined && Math.min(width, height) < rule.minShortSide) {
    return {
      rule: "image-size",
      message: `is ${sides} px; the short side must be at least ${rule.minShortSide} px`,
    };
  }
  const ratio = width / height;
  if (
    (rule.minRatio !== undefined && ratio < rule.minRatio - 1e-9) ||
    (rule.maxRatio !== undefined && ratio > rule.maxRatio + 1e-9)
  ) {
    return {
      rule: "image-ratio",
      message: `is ${sides} px (width/height ${ratioText(ratio)}); it must be within ${ratioText(rule.minRatio ?? 0)} to ${ratioText(rule.maxRatio ?? Number.POSITIVE_INFINITY)}`,
    };
  }
  if (rule.maxPixels !== undefined && width * height > rule.maxPixels) {
    return {
      rule: "image-pixels",
      message: `has ${width * height} pixels; at most ${rule.maxPixels}`,
    };
  }
  return undefined;
}

/** A ratio to three decimals, so one just past a bound (8.004 against 8) does not read as equal. */
function ratioText(ratio: number): string {
  return Number.isFinite(ratio) ? String(Number(ratio.toFixed(3))) : "any";
}
