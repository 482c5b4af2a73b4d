import path from "node:path";
import { type FileGate, readGated } from "../core/file-gate.js";
import { isDataUri, isUrl } from "./common.js";
import { brokenImageRule, type ImageFacts, imageSize, MB } from "./image-rules.js";
import type { Family, ImageInputRule, RequestBody } from "./types.js";

/**
 * Local image files named in image fields: read, checked against the family's input rules
 * with sharp, and sent as Data URIs where the family accepts them.
 */

export interface LocalImageProblem {
  path: (string | number)[];
  rule: string;
  message: string;
  /** The file as written, when it is no picture at all (text, a clip): not one a rule refused. */
  notAPicture?: string;
}

interface ImageFile extends ImageFacts {
  dataUri: string;
}

/** Reads each file once however many jobs name it. */
export type ImageFileCache = Map<string, Promise<ImageFile | Unreadable>>;

/** Why a file cannot be an image input; `notAPicture` when it reads but is no picture. */
type Unreadable = { error: string; rule: string; notAPicture?: true };

/** True when a value in an image field names a local file rather than a URL or Data URI. */
export function isLocalPath(value: string): boolean {
  return (
    !isUrl(value) &&
    !isDataUri(value) &&
    !value.startsWith("data:") &&
    !value.includes("{{") &&
    value.trim() !== ""
  );
}

/** Every (path, value) of the body that sits in an image field of the family. */
export function imageValues(
  family: Family,
  body: RequestBody,
): { rule: ImageInputRule; path: (string | number)[]; value: unknown }[] {
  const found: { rule: ImageInputRule; path: (string | number)[]; value: unknown }[] = [];
  for (const rule of family.imageInputs) {
    const visit = (value: unknown, steps: readonly string[], at: (string | number)[]) => {
      const [step, ...rest] = steps;
      if (step === undefined) {
        found.push({ rule, path: at, value });
        return;
      }
      if (step === "*") {
        if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) visit(item, rest, [...at, index]);
        }
      } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        const child = (value as Record<string, unknown>)[step];
        if (child !== undefined) visit(child, rest, [...at, step]);
      }
    };
    visit(body, rule.path, []);
  }
  return found;
}

/** True when some image field of the body names a local file (cheap; no IO). */
export function hasLocalImages(family: Family, body: RequestBody): boolean {
  return imageValues(family, body).some(
    ({ value }) => typeof value === "string" && isLocalPath(value),
  );
}

/**
 * Replaces local files in image fields by Data URIs, each read through the manifest's file
 * gate (relative to its folder); problems say which rule a file broke.
 */
export async function inlineLocalImages(
  family: Family,
  body: RequestBody,
  from: { dir: string; gate: FileGate },
  cache: ImageFileCache,
): Promise<{ body: RequestBody; problems: LocalImageProblem[] }> {
  const problems: LocalImageProblem[] = [];
  const copy = structuredClone(body);
  for (const { rule, path: at, value } of imageValues(family, body)) {
    if (typeof value !== "string" || !isLocalPath(value)) continue;
    const file = path.resolve(from.dir, value);
    let pending = cache.get(file);
    if (pending === undefined) {
      pending = readImage(from.gate, file);
      cache.set(file, pending);
    }
    const image = await pending;
    if ("error" in image) {
      const problem = { path: at, rule: image.rule, message: `${value}: ${image.error}` };
      problems.push(image.notAPicture ? { ...problem, notAPicture: value } : problem);
      continue;
    }
    const broken = brokenImageRule(image, rule);
    if (broken !== undefined) {
      problems.push({ path: at, rule: broken.rule, message: `${value}: ${broken.message}` });
      continue;
    }
    if (!rule.dataUri) {
      problems.push({
        path: at,
        rule: "url-only",
        message: `${value}: ${family.title} accepts only http(s) URLs here, so a local file cannot be sent; upload it and give its URL`,
      });
      continue;
    }
    setAt(copy, at, image.dataUri);
  }
  return { body: copy, problems };
}

function setAt(root: unknown, at: readonly (string | number)[], value: unknown): void {
  let target = root as Record<string | number, unknown>;
  for (const step of at.slice(0, -1)) target = target[step] as Record<string | number, unknown>;
  target[at[at.length - 1] as string | number] = value;
}

// No family takes an image above 50 MB; anything far larger is not read into memory at all.
export const MAX_LOCAL_IMAGE_BYTES = 100 * MB;

async function readImage(gate: FileGate, file: string): Promise<ImageFile | Unreadable> {
  const read = await readGated(gate, file, MAX_LOCAL_IMAGE_BYTES);
  if ("problem" in read) {
    if (read.kind === "too-large")
      return {
        error: `is more than ${MAX_LOCAL_IMAGE_BYTES / MB} MB, too large to be an image input`,
        rule: "image-bytes",
      };
    const rule =
      read.kind === "missing"
        ? "file-not-found"
        : read.kind === "outside"
          ? "outside-project"
          : "not-a-file";
    return {
      error: read.kind === "missing" ? `file not found (looked for ${file})` : read.problem,
      rule,
    };
  }
  const data = read.bytes;
  const size = await imageSize(data);
  if (size === undefined) {
    return {
      error: "not an image gwrun can read (expected JPEG, PNG, WebP, GIF or BMP)",
      rule: "image-format",
      notAPicture: true,
    };
  }
  const mime = size.format === "jpeg" ? "jpeg" : size.format;
  return {
    ...size,
    bytes: data.length,
    dataUri: `data:image/${mime};base64,${data.toString("base64")}`,
  };
}
