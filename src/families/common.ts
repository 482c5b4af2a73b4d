import * as z from "zod";
import { PUBLIC_URL_RULE, privateUrlProblem } from "./public-urls.js";
import type { ExpectedOutputs, ModelPattern, PixelSize, RequestBody } from "./types.js";

/**
 * Building blocks for family schemas. Cross-field rules are written as plain functions over
 * the raw body and run even when a field has the wrong type, so a manifest gets every problem
 * at once; they must therefore read fields defensively (the accessors below).
 */

/** The vendor word the spec leaves out: one word of letters and digits. */
export const BRAND = "[A-Za-z][A-Za-z0-9]*";

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A model pattern from a spec identifier written with `<brand>`. */
export function model(spec: string): ModelPattern {
  const [before, after] = spec.split("<brand>") as [string, string | undefined];
  const source =
    after === undefined
      ? escapeRegExp(before)
      : `${escapeRegExp(before)}${BRAND}${escapeRegExp(after)}`;
  return {
    pattern: new RegExp(`^${source}$`),
    example: spec.replace("<brand>", "acme"),
  };
}

/** The `model` field: a string that matches one of the family's patterns; `hint` ends the message. */
export function modelField(patterns: readonly ModelPattern[], hint?: string) {
  const rule = `one of ${patterns.map((p) => p.label ?? p.example.replace("acme", "<brand>")).join(", ")}`;
  // Refinements are invisible to JSON Schema; the description carries the rule to schemas/ and `gwrun fields`.
  return z
    .string()
    .refine((value) => patterns.some((p) => p.pattern.test(value)), {
      message: `must be ${rule}${hint === undefined ? "" : `; ${hint}`}`,
      params: { rule: "model" },
    })
    .meta({ description: `${rule} (<brand> is the vendor word)` });
}

/** A JSON integer within [min, max]; a quoted number is a type error. */
export function int(min?: number, max?: number) {
  let schema = z.number().int();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
}

/** A JSON number within [min, max]. */
export function num(min?: number, max?: number) {
  let schema = z.number();
  if (min !== undefined) schema = schema.min(min);
  if (max !== undefined) schema = schema.max(max);
  return schema;
}

/** An integer that must be one of `values` (e.g. duration 6 or 10). */
export function intOneOf(values: readonly number[]) {
  return z
    .number()
    .int()
    .refine((value) => values.includes(value), {
      message: `must be one of ${values.join(", ")}`,
      params: { rule: "enum", values },
    })
    .meta({ enum: [...values] });
}

/** A string enum; values are case-sensitive, exactly as the spec writes them. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values);
}

/** A string of at most `max` characters. */
export function text(max?: number) {
  return max === undefined ? z.string() : z.string().max(max);
}

const URL_PATTERN = /^https?:\/\/[^\s/$.?#][^\s]*$/i;
const DATA_URI_PATTERN = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;

export function isUrl(value: string): boolean {
  return URL_PATTERN.test(value);
}

export function isDataUri(value: string): boolean {
  return DATA_URI_PATTERN.test(value);
}

/** A format's name for comparison: JPG and JPEG are one format. */
function formatName(format: string): string {
  const name = format.toLowerCase();
  return name === "jpg" ? "jpeg" : name;
}

/** Whether a field's format list (sharp names: jpeg, png, webp, gif, bmp) takes `format`. */
export function takesFormat(formats: readonly string[], format: string): boolean {
  const name = formatName(format);
  return formats.some((listed) => formatName(listed) === name);
}

/** The one message for an image whose format its field does not take; `what` names the image. */
export function formatNotTaken(what: string, formats: readonly string[]): string {
  const names = [...new Set(formats.map((format) => formatName(format).toUpperCase()))];
  return `${what} is not one of the formats this field takes (${names.join(", ")})`;
}

/** The format a Data URI's payload starts with; undefined when none of the five is recognised. */
function sniffFormat(payload: string): string | undefined {
  // 16 base64 characters are 12 bytes, enough for every signature here.
  const base64 = payload.slice(0, 64).replace(/\s/g, "").slice(0, 16);
  const head = Buffer.from(base64, "base64").toString("latin1");
  if (head.startsWith("\xff\xd8\xff")) return "jpeg";
  if (head.startsWith("\x89PNG\r\n\x1a\n")) return "png";
  if (head.startsWith("GIF8")) return "gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "webp";
  if (head.startsWith("BM")) return "bmp";
  return undefined;
}

/**
 * Why a Data URI's image is not in a format of `formats`, or undefined. The spec's lists are
 * about the image, so a payload whose first bytes show another format (a GIF labelled
 * image/png) is caught as well as a declared type outside the list.
 */
export function dataUriFormatProblem(
  value: string,
  formats: readonly string[],
): string | undefined {
  if (!isDataUri(value)) return undefined;
  const declared = value.slice("data:image/".length, value.indexOf(";")).toLowerCase();
  if (!takesFormat(formats, declared)) {
    return formatNotTaken(`a data:image/${declared} URI`, formats);
  }
  const actual = sniffFormat(value.slice(value.indexOf(",") + 1));
  if (actual !== undefined && !takesFormat(formats, actual)) {
    return formatNotTaken(
      `a ${actual.toUpperCase()} image (labelled data:image/${declared})`,
      formats,
    );
  }
  return undefined;
}

/** Adds the public-url issue when the gateway could never fetch `url`. */
export function publicUrl(url: string, ctx: z.core.$RefinementCtx<string>): void {
  const problem = privateUrlProblem(url);
  if (problem !== undefined)
    ctx.addIssue({ code: "custom", message: problem, params: { rule: PUBLIC_URL_RULE } });
}

/** An image reference: an http(s) URL, or also a Data URI `data:image/<format>;base64,...`. */
export function imageRef(options: { dataUri: boolean }) {
  return z
    .string()
    .superRefine((value, ctx) => {
      if (isUrl(value)) {
        publicUrl(value, ctx);
        return;
      }
      if (options.dataUri && isDataUri(value)) return;
      ctx.addIssue({
        code: "custom",
        message: options.dataUri
          ? "must be an http(s) URL or a Data URI data:image/<format>;base64,<data>"
          : value.startsWith("data:")
            ? "must be an http(s) URL; this field does not accept Data URIs"
            : "must be an http(s) URL",
        params: { rule: options.dataUri ? "image-ref" : "url-only" },
      });
    })
    .meta({
      description: options.dataUri
        ? "a public http(s) URL or a Data URI data:image/<format>;base64,<data>"
        : "a public http(s) URL",
    });
}

const VIDEO_EXTENSIONS = ["mp4", "mov"];

/** The file extension of a URL's path, lowercased; undefined when the path has none. */
function urlExtension(value: string): string | undefined {
  let path: string;
  try {
    path = new URL(value).pathname;
  } catch {
    return undefined;
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : undefined;
}

/**
 * Why a video URL is not MP4 or MOV, or undefined when it may be: a URL without an extension
 * may still serve either, so only a stated other extension is wrong.
 */
export function videoFormatProblem(value: string): string | undefined {
  const extension = urlExtension(value);
  if (extension === undefined || VIDEO_EXTENSIONS.includes(extension)) return undefined;
  return `the video must be MP4 or MOV, got a ".${extension}" file`;
}

/** A video the gateway fetches: a public http(s) URL, its format checked by the caller. */
export function videoLink() {
  return mediaUrl()
    .superRefine((value, ctx) => publicUrl(value, ctx))
    .meta({ description: "a public http(s) URL" });
}

/** A source video: an http(s) URL of an MP4 or MOV file. */
export function videoUrl() {
  return videoLink()
    .superRefine((value, ctx) => {
      const problem = videoFormatProblem(value);
      if (problem !== undefined)
        ctx.addIssue({ code: "custom", message: problem, params: { rule: "format" } });
    })
    .meta({ description: "a public http(s) URL of an MP4 or MOV file" });
}

/** A media (video/audio) reference: an http(s) URL only. */
export function mediaUrl() {
  return z
    .string()
    .refine(isUrl, { message: "must be an http(s) URL", params: { rule: "url-only" } })
    .meta({ description: "an http(s) URL" });
}

/**
 * Reports a broken cross-field rule at `path` with a stable rule name. A "warning" is for what
 * the spec advises rather than requires: it is shown but does not stop the job.
 */
export type Report = (
  path: readonly (string | number)[],
  rule: string,
  message: string,
  severity?: "warning",
) => void;

/**
 * A strict request object (unknown fields are errors) with cross-field `rules` that run even
 * when some field is malformed.
 */
export function request<Shape extends z.core.$ZodLooseShape>(
  shape: Shape,
  rules?: (body: RequestBody, report: Report) => void,
) {
  const base = z.strictObject(shape);
  if (rules === undefined) return base;
  return base.superRefine(
    (body, ctx) => {
      if (body === null || typeof body !== "object" || Array.isArray(body)) return;
      rules(body as RequestBody, (path, rule, message, severity) =>
        ctx.addIssue({ code: "custom", path: [...path], message, params: { rule, severity } }),
      );
    },
    { when: () => true },
  );
}

/** A strict nested object (items of arrays, option objects). */
export function object<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject(shape);
}

// Defensive accessors for rules over a raw body.

export function has(body: RequestBody, field: string): boolean {
  return body[field] !== undefined;
}

export function numberAt(body: RequestBody, field: string): number | undefined {
  const value = body[field];
  return typeof value === "number" ? value : undefined;
}

export function stringAt(body: RequestBody, field: string): string | undefined {
  const value = body[field];
  return typeof value === "string" ? value : undefined;
}

export function booleanAt(body: RequestBody, field: string): boolean | undefined {
  const value = body[field];
  return typeof value === "boolean" ? value : undefined;
}

export function arrayAt(body: RequestBody, field: string): unknown[] | undefined {
  const value = body[field];
  return Array.isArray(value) ? value : undefined;
}

export function recordAt(value: unknown): RequestBody | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as RequestBody)
    : undefined;
}

/** Parses "1536x1024" (or "1536*1024" where allowed) into a pixel size. */
const PIXEL_PATTERNS = new Map<string, RegExp>();

export function parsePixels(
  value: string,
  separators = "x",
): { width: number; height: number } | undefined {
  let pattern = PIXEL_PATTERNS.get(separators);
  if (pattern === undefined) {
    pattern = new RegExp(`^(\\d+)[${separators}](\\d+)$`);
    PIXEL_PATTERNS.set(separators, pattern);
  }
  const match = pattern.exec(value);
  if (match === null) return undefined;
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * What a video task produces: one clip. Sizes and audio default to null, meaning the spec
 * states nothing a check could hold the clip to.
 */
export function oneClip(clip: {
  durationSeconds: number | null;
  audio?: boolean | null;
  sizes?: readonly PixelSize[] | null;
}): ExpectedOutputs {
  return {
    kind: "video",
    count: 1,
    exact: true,
    sizes: clip.sizes ?? null,
    durationSeconds: clip.durationSeconds,
    audio: clip.audio ?? null,
  };
}
