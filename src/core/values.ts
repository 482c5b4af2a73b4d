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
