import { INPUT_PLACEHOLDERS } from "../manifest/index.js";
import { isDataUri } from "./common.js";
import { brokenImageRule, type ImageFacts, imageSize } from "./image-rules.js";
import { imageValues } from "./local-images.js";
import type { Family, RequestBody } from "./types.js";
import type { RequestIssue } from "./validate.js";

/**
 * Data URIs in image fields, checked as local files are: their bytes decoded, the header read
 * (never the pixels), and held to the field's format, byte and pixel rules. A Data URI whose
 * bytes are another format than the one it names is refused too: the gateway trusts the name.
 */

/** One Data URI's facts, or why it is no image; kept per URI text, as one may fill many tasks. */
export type DataUriCache = Map<string, Promise<ImageFacts | { problem: string }>>;

const STAND_IN = INPUT_PLACEHOLDERS.file();

/** Media type names sharp knows by another name (JPG is JPEG; AVIF is read as HEIF). */
const NAMED_FORMATS: Readonly<Record<string, string>> = {
  jpg: "jpeg",
  pjpeg: "jpeg",
  "x-ms-bmp": "bmp",
  "x-bmp": "bmp",
  "svg+xml": "svg",
  avif: "heif",
  tif: "tiff",
};

/** "data:image/png;base64,…": short enough for a message, still saying what it claims to be. */
export function describeDataUri(value: string): string {
  return `${value.slice(0, value.indexOf(",") + 1)}…`;
}

function declaredFormat(value: string): string {
  const declared = value.slice("data:image/".length, value.indexOf(";")).toLowerCase();
  return NAMED_FORMATS[declared] ?? declared;
}

async function readDataUri(value: string): Promise<ImageFacts | { problem: string }> {
  const data = Buffer.from(value.slice(value.indexOf(",") + 1), "base64");
  const size = await imageSize(data);
  const declared = declaredFormat(value);
  if (size === undefined) {
    return {
      problem: `its bytes are not a ${declared.toUpperCase()} image (nor any image gwrun can read)`,
    };
  }
  if (size.format !== declared) {
    return {
      problem: `its bytes are a ${size.format.toUpperCase()} image, not ${declared.toUpperCase()}: write data:image/${size.format};base64,… or send the image it names`,
    };
  }
  return { ...size, bytes: data.length };
}

/**
 * Every Data URI in an image field of the body that is not the image it names or breaks the
 * field's rules. Paths in `skip` already have a problem and are not read again.
 */
export async function dataUriImageIssues(
  family: Family,
  body: RequestBody,
  cache: DataUriCache = new Map(),
  skip: ReadonlySet<string> = new Set(),
): Promise<RequestIssue[]> {
  const issues: RequestIssue[] = [];
  for (const { rule, path, value } of imageValues(family, body)) {
    if (typeof value !== "string" || !isDataUri(value) || skip.has(path.join("."))) continue;
    // An upstream's file stands in until it is bound, and is read then.
    if (value === STAND_IN) continue;
    let pending = cache.get(value);
    if (pending === undefined) {
      pending = readDataUri(value);
      cache.set(value, pending);
    }
    const image = await pending;
    const name = describeDataUri(value);
    if ("problem" in image) {
      issues.push({ path, rule: "image-format", message: `${name}: ${image.problem}` });
      continue;
    }
    const broken = brokenImageRule(image, rule);
    if (broken !== undefined)
      issues.push({ path, rule: broken.rule, message: `${name}: ${broken.message}` });
  }
  return issues;
}
