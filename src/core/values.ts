/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The value with every Data URI shortened to its header and length (reports stay small). */
export function redactDataUris(value: unknown): unknown {
  if (typeof value === "string")
    return value.startsWith("data:")
      ? `${value.slice(0, value.indexOf(",") + 1)}…(${value.length} chars)`
      : value;
  if (Array.isArray(value)) return value.map(redactDataUris);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDataUris(v)]));
  return value;
}
