import { type ExpectedOutputs, FAMILIES, type RequestBody } from "../families/index.js";
import type { TaskRow } from "../store/index.js";

const byId = new Map(FAMILIES.map((family) => [family.id, family]));

/**
 * What a job's family promises for its request; for a passthrough job of an unknown model,
 * only its kind (nothing a size or duration check could hold it to).
 */
export function expectedFor(row: TaskRow, body: RequestBody): ExpectedOutputs {
  const family = row.family === null ? undefined : byId.get(row.family);
  if (family !== undefined) return family.expectedOutputs(body);
  const kind = row.lane === "video" ? "video" : row.lane === "text" ? "text" : "image";
  return { kind, count: 1, exact: false, sizes: null, durationSeconds: null, audio: null };
}

/** Request fields that decide an output's shape, named in check messages. */
const SHAPE_FIELDS = ["size", "aspect_ratio", "resolution", "mode", "duration", "n"];

/** "size 16:9, resolution 2k": what the request asked for, for a check message. */
export function askedFor(body: RequestBody, fields: readonly string[] = SHAPE_FIELDS): string {
  const asked = fields
    .filter((field) => ["string", "number"].includes(typeof body[field]))
    .map((field) => `${field} ${String(body[field])}`);
  return asked.length === 0 ? "the request" : asked.join(", ");
}

/** "1792x1024" or "1792x1024 or 2048x1152". */
export function sizesText(sizes: readonly { width: number; height: number }[]): string {
  return sizes.map((size) => `${size.width}x${size.height}`).join(" or ");
}
