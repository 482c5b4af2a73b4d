import { isRecord } from "../core/values.js";

/**
 * A YAML alias names a value written once, and aliases inside aliased values multiply: nine
 * levels of nine make 387 million values of a few lines of text. Every later step walks the
 * manifest's values, so their number is bounded first, counting each shared value as often
 * as it is reached (once per object, memoized: the count itself never walks the expansion).
 */

/** Values a manifest may hold once its aliases are expanded. */
export const MAX_MANIFEST_VALUES = 1_000_000;

type Path = (string | number)[];

/** Where `value` first grows past `limit` values, and how many it holds there; else undefined. */
export function oversizedAt(
  value: unknown,
  limit: number = MAX_MANIFEST_VALUES,
): { path: Path; size: number } | undefined {
  const sizes = new Map<object, number>();
  const total = sizeOf(value, sizes);
  if (total <= limit) return undefined;
  // Down the largest child while it alone is over the limit: the place its aliases multiply.
  const path: Path = [];
  let at: unknown = value;
  for (;;) {
    const children = childrenOf(at);
    const largest = children.reduce<[string | number, unknown, number] | undefined>(
      (best, [key, child]) => {
        const size = sizeOf(child, sizes);
        return best === undefined || size > best[2] ? [key, child, size] : best;
      },
      undefined,
    );
    if (largest === undefined || largest[2] <= limit) break;
    path.push(largest[0]);
    at = largest[1];
  }
  return { path, size: total };
}

function childrenOf(value: unknown): [string | number, unknown][] {
  if (Array.isArray(value)) return value.map((item, index) => [index, item]);
  if (isRecord(value)) return Object.entries(value);
  return [];
}

/** Values in `value`, itself included; shared objects counted each time they are reached. */
function sizeOf(value: unknown, sizes: Map<object, number>): number {
  if (value === null || typeof value !== "object") return 1;
  const known = sizes.get(value);
  if (known !== undefined) return known;
  // A value inside itself (a recursive alias) is counted as past any limit.
  sizes.set(value, Number.POSITIVE_INFINITY);
  let size = 1;
  for (const [, child] of childrenOf(value)) {
    size += sizeOf(child, sizes);
    if (!Number.isFinite(size)) break;
  }
  sizes.set(value, size);
  return size;
}
