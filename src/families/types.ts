import type * as z from "zod";

/** Capacity lane of a family: video capacity is far lower than image capacity at every gateway. */
export type Lane = "image" | "video" | "text";

/** A request body as sent to the gateway (after interpolation). */
export type RequestBody = Record<string, unknown>;

export interface PixelSize {
  width: number;
  height: number;
}

/** A model identifier the family accepts; `example` uses the vendor word `acme`. */
export interface ModelPattern {
  pattern: RegExp;
  example: string;
  /** How the spec writes the id, when `<brand>` is not its only open part. */
  label?: string;
}

/**
 * Where a request carries images, and what the family accepts there. Used to check and
 * inline local files named in a manifest (sharp metadata), and by the request schema.
 */
export interface ImageInputRule {
  /** Path into the body; "*" matches every array index. */
  path: readonly string[];
  /** Data URIs accepted here; otherwise only http(s) URLs. */
  dataUri: boolean;
  /** Only https:// URLs: a plain http:// link is refused. */
  httpsOnly?: boolean;
  /**
   * Accepted formats as sharp names (jpeg, png, webp, gif, bmp); undefined = not stated. Local
   * files and Data URIs (declared type and first bytes) are both held to it.
   */
  formats?: readonly string[];
  maxBytes?: number;
  /** Each side at least / at most this many pixels. */
  minSide?: number;
  maxSide?: number;
  /** The shorter side at least this many pixels. */
  minShortSide?: number;
  /** width / height bounds, inclusive. */
  minRatio?: number;
  maxRatio?: number;
  /** width * height at most. */
  maxPixels?: number;
}

/** What one task of this request should produce; checked after download. */
export interface ExpectedOutputs {
  kind: "image" | "video" | "text";
  /** Outputs per task; with `exact` false it is an upper bound. */
  count: number;
  exact: boolean;
  /** Accepted pixel sizes of each image or clip (any one of them); null when not stated. */
  sizes: readonly PixelSize[] | null;
  /** Clip length in seconds; null when the source or the gateway decides. */
  durationSeconds?: number | null;
  /** Whether the clip must carry an audio track; null when not stated. */
  audio?: boolean | null;
}

/** A header a family requires beyond the credentials (the messages version header). */
export interface HeaderRule {
  /** How the header is described to a person, e.g. "<brand>-version". */
  label: string;
  name: RegExp;
  value: RegExp;
}

export interface Family {
  /** Stable id, e.g. "image-a", "video-3", "text-chat"; also the schema file name. */
  id: string;
  /** How the spec names it, e.g. "image family A". */
  title: string;
  lane: Lane;
  /** Request path; native text calls put the model in it: "/v1beta/models/{model}:generateContent". */
  endpoint: string;
  /** Model identifiers; empty for text endpoints, which jobs pick by `endpoint:` (native checks its model in the schema). */
  models: readonly ModelPattern[];
  /** The request body schema: every rule of the family's section of the spec. */
  schema: z.ZodType;
  imageInputs: readonly ImageInputRule[];
  headers?: readonly HeaderRule[];
  /** The mode the gateway routes this body to (e.g. "T2V", "I2V", "EDIT"), where the family routes. */
  mode?(body: RequestBody): string;
  /** The request path when it depends on the body (native text: model and method in the path). */
  path?(body: RequestBody): string;
  expectedOutputs(body: RequestBody): ExpectedOutputs;
  /** Price of one task in the gateway's currency units; null when the spec states none. */
  estimateCost(body: RequestBody): number | null;
}
