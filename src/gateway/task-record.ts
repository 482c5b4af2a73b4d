import { isRecord } from "../core/values.js";
import { badResponse } from "./envelope.js";
import { gatewayText } from "./gateway-text.js";

/** The spec's Task record, read tolerantly: unknown fields are kept in `raw`. */
export interface TaskRecord {
  id: string;
  /** `submitted`, `processing`, `completed` or `failed` (anything else is passed on as is). */
  status: string;
  /** Percent, 0 to 100; null when absent. */
  progress: number | null;
  /** Unix seconds. */
  created: number | null;
  completed: number | null;
  /** Seconds. */
  actualTime: number | null;
  estimatedTime: number | null;
  cost: number | null;
  /** `error.message` of a failed task. */
  errorMessage: string | null;
  result: unknown;
  raw: Record<string, unknown>;
}

const numberOr = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;

/** A Task record from the `data` of a task query; `expectedId` fills an absent `id`. */
export function readTaskRecord(value: unknown, what: string, expectedId?: string): TaskRecord {
  if (!isRecord(value)) throw badResponse(what, "the task record is not an object");
  const id =
    typeof value.id === "string"
      ? value.id
      : typeof value.task_id === "string"
        ? value.task_id
        : expectedId;
  if (id === undefined) throw badResponse(what, "the task record has no id");
  if (typeof value.status !== "string") throw badResponse(what, `task ${id} has no status`);
  const error = value.error;
  return {
    id,
    status: value.status,
    progress: numberOr(value.progress),
    created: numberOr(value.created),
    completed: numberOr(value.completed),
    actualTime: numberOr(value.actual_time),
    estimatedTime: numberOr(value.estimated_time),
    cost: numberOr(value.cost),
    errorMessage:
      isRecord(error) && typeof error.message === "string"
        ? gatewayText(error.message)
        : typeof error === "string"
          ? gatewayText(error)
          : null,
    result: value.result,
    raw: value,
  };
}

/** One output of a completed task. */
export interface OutputLink {
  url: string;
  /** When the link stops working, in Unix milliseconds; null when not given. */
  expiresAt: number | null;
}

/**
 * The output links of a completed task: `result.images` (spec: `url` is an array whose first
 * element is the picture), `result.videos` in the same form, or else every http(s) URL found
 * anywhere in `result` (the video result is not shown in the spec). Empty when there are none.
 */
export function outputLinks(record: TaskRecord): OutputLink[] {
  const result = record.result;
  if (!isRecord(result)) return [];
  for (const field of ["images", "videos"]) {
    const items = result[field];
    if (Array.isArray(items) && items.length > 0) {
      const links = items.flatMap((item) => linkOf(item, expiresOf(result)));
      if (links.length > 0) return links;
    }
  }
  return collectUrls(result, expiresOf(result));
}

function linkOf(item: unknown, fallbackExpiry: number | null): OutputLink[] {
  if (typeof item === "string")
    return isHttpUrl(item) ? [{ url: item, expiresAt: fallbackExpiry }] : [];
  if (!isRecord(item)) return [];
  const url = Array.isArray(item.url) ? item.url[0] : item.url;
  if (typeof url !== "string" || !isHttpUrl(url))
    return collectUrls(item, expiresOf(item) ?? fallbackExpiry);
  return [{ url, expiresAt: expiresOf(item) ?? fallbackExpiry }];
}

function collectUrls(value: unknown, expiresAt: number | null): OutputLink[] {
  if (typeof value === "string") return isHttpUrl(value) ? [{ url: value, expiresAt }] : [];
  if (Array.isArray(value)) return value.flatMap((item) => collectUrls(item, expiresAt));
  if (!isRecord(value)) return [];
  const own = expiresOf(value) ?? expiresAt;
  return Object.values(value).flatMap((item) => collectUrls(item, own));
}

function expiresOf(value: Record<string, unknown>): number | null {
  const seconds = numberOr(value.expires_at);
  return seconds === null ? null : seconds * 1000;
}

/** A link with spaces or controls in it is not one, whatever else it holds. */
function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^\s\p{Cc}\p{Cf}]+$/iu.test(value);
}
