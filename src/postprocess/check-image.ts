import sharp from "sharp";
import type { ExpectedOutputs, RequestBody } from "../families/index.js";
import { askedFor, sizesText } from "./expected.js";

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
  const image = sharp(file);
  let meta: sharp.Metadata;
  try {
    meta = await image.metadata();
  } catch (error) {
    return {
      problems: [`${name} is not a readable image: ${(error as Error).message}`],
      details: {},
    };
  }
  const { format, width = 0, height = 0 } = meta;
  const details = { format, width, height };
  const problems: string[] = [];
  const served = contentType === null ? undefined : FORMAT_BY_TYPE[contentType];
  if (served !== undefined && served !== format)
    problems.push(`${name} is a ${format} image, served as ${contentType}`);
  const sizes = expected.sizes;
  if (sizes !== null && !sizes.some((size) => size.width === width && size.height === height))
    problems.push(
      `${name} is ${width}x${height}, expected ${sizesText(sizes)} for ${askedFor(body)}`,
    );
  if (decode) {
    try {
      await image.resize(32).raw().toBuffer();
    } catch (error) {
      problems.push(`${name} does not decode: ${(error as Error).message}`);
    }
  }
  return { problems, details };
}
