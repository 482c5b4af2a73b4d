import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Pair } from "yaml";
import type { Span } from "./diagnostics.js";

/** Navigation of the parsed YAML tree, so a path into the manifest's value finds its text. */

export type Path = readonly (string | number)[];

export interface Located {
  /** The deepest node the path reaches. */
  node: Node;
  /** The key node of the last step, when the path ended on a map entry. */
  key?: Node;
  /** How many steps of the path were found. */
  depth: number;
}

/** Follows `path` from `node` as far as it exists. */
export function locate(doc: Document, node: Node, path: Path): Located {
  let current: Node = node;
  let key: Node | undefined;
  let depth = 0;
  for (const step of path) {
    const resolved = resolveAlias(doc, current);
    const next = childOf(doc, resolved, step);
    if (next === undefined) break;
    current = next.value;
    key = next.key;
    depth++;
  }
  return key === undefined ? { node: current, depth } : { node: current, key, depth };
}

function resolveAlias(doc: Document, node: Node): Node {
  return isAlias(node) ? ((node.resolve(doc) as Node | undefined) ?? node) : node;
}

function childOf(
  doc: Document,
  node: Node,
  step: string | number,
): { value: Node; key?: Node } | undefined {
  if (isSeq(node) && typeof step === "number") {
    const item = node.items[step];
    return item === undefined ? undefined : { value: item as Node };
  }
  if (isMap(node)) {
    const pair = findPair(doc, node.items as Pair[], String(step));
    if (pair === undefined) return undefined;
    const value = (pair.value ?? pair.key) as Node;
    return { value, key: pair.key as Node };
  }
  return undefined;
}

function findPair(doc: Document, pairs: readonly Pair[], name: string): Pair | undefined {
  for (const pair of pairs) {
    if (isPair(pair) && isScalar(pair.key) && String(pair.key.value) === name) return pair;
  }
  // A key brought in by a merge (`<<: *base`).
  for (const pair of pairs) {
    if (isScalar(pair.key) && pair.key.value === "<<" && pair.value) {
      const source = resolveAlias(doc, pair.value as Node);
      if (isMap(source)) {
        const found = findPair(doc, source.items as Pair[], name);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

/** The text a node covers (its value, not trailing comments). */
export function spanOf(node: Node | undefined): Span {
  const range = node?.range;
  if (range === undefined || range === null) return { offset: 0, length: 0 };
  return { offset: range[0], length: Math.max(0, range[1] - range[0]) };
}

/** Where character `index` of a scalar's value sits in the file (exact for one-line scalars). */
export function offsetInScalar(node: Node, index: number): number {
  const start = node.range?.[0] ?? 0;
  if (!isScalar(node)) return start;
  if (typeof node.value === "string" && node.value.includes("\n")) return start;
  const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? 1 : 0;
  return start + quoted + index;
}
