import { createHash } from "node:crypto";

/** Hex sha256 of a string or buffer. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

// Data URIs are hashed once per distinct string: the same reference image is often
// sent by thousands of jobs, and V8 caches a string's own hash for Map lookups.
const dataUriDigests = new Map<string, string>();

/** `sha256:<hex>` of a Data URI, as a whole. */
export function digestDataUri(value: string): string {
  let digest = dataUriDigests.get(value);
  if (digest === undefined) {
    digest = `sha256:${sha256(value)}`;
    dataUriDigests.set(value, digest);
  }
  return digest;
}

/**
 * JSON with object keys sorted at every depth, so equal values give equal text whatever
 * the key order or YAML formatting. Data URIs (local files) stand in by their content hash.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "string" && value.startsWith("data:") && value.length > 256) {
      return JSON.stringify(digestDataUri(value));
    }
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(",")}]`;
  }
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
    );
  return `{${entries.join(",")}}`;
}
