import { digestDataUri } from "./hash.js";

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Characters of a Data URI's header kept (`data:image/png;base64,`): a real one is far shorter. */
const HEADER_MAX = 100;

/**
 * The value with every Data URI (an inlined file) shortened to its header, length and hash,
 * `data:image/png;base64,…(27962028 chars, sha256:…)`: reports and the viewer's answers stay
 * small, and the file is still told apart.
 */
export function redactDataUris(value: unknown): unknown {
  if (typeof value === "string") {
    if (!value.startsWith("data:")) return value;
    const header = value.slice(0, Math.min(value.indexOf(",") + 1, HEADER_MAX));
    return `${header}…(${value.length} chars, ${digestDataUri(value)})`;
  }
  if (Array.isArray(value)) return value.map(redactDataUris);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDataUris(v)]));
  return value;
}

/** Names an object value is known by, in the order tried (a matrix entry, a data row). */
const NAME_FIELDS = ["id", "name", "label", "title", "sku", "key"];

/** Characters a value's label keeps. */
const LABEL_CHARS = 60;

/**
 * A variable's value as a person reads it in a grid's heading: a string as it is; an object
 * by its `id` (or name, label, title, sku, key), else its fields `k: v`; a list by its items.
 */
export function valueLabel(value: unknown): string {
  const whole = labelOf(value, 0);
  return whole.length > LABEL_CHARS ? `${whole.slice(0, LABEL_CHARS - 1)}…` : whole;
}

function labelOf(value: unknown, depth: number): string {
  if (value === null || value === undefined) return "–";
  if (typeof value !== "object") return String(value);
  if (depth > 2) return "…";
  if (Array.isArray(value)) return value.map((item) => labelOf(item, depth + 1)).join(", ");
  const record = value as Record<string, unknown>;
  const named = NAME_FIELDS.find(
    (field) => typeof record[field] === "string" || typeof record[field] === "number",
  );
  if (named !== undefined) return String(record[named]);
  return Object.entries(record)
    .map(([key, item]) => `${key}: ${labelOf(item, depth + 1)}`)
    .join(", ");
}
