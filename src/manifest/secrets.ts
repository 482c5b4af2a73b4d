import { isScalar, type Scalar, stringify } from "yaml";
import type { Reporter } from "./report.js";
import type { ManifestSource } from "./source.js";

/**
 * An API key written in a manifest. The manifest is kept with its run (so `gwrun resume` can
 * continue it); that copy must not hold the key: it keeps an environment reference instead,
 * and validation suggests the environment in the first place.
 */

/** What a literal key becomes in the run's copy of the manifest: the environment's key, or none. */
export const MASKED_KEY = `"\${GW_API_KEY:-}"`;

const ENV_ONLY = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/g;

/**
 * The `gateway.api_key` scalar as written, when the manifest has one. Asked for only once the
 * plain value holds a literal key: the position-keeping document of a large manifest takes
 * seconds to build (100,000 jobs: about 10 s and 800 MB).
 */
function keyNode(source: ManifestSource): Scalar | undefined {
  const node = source.doc.getIn(["gateway", "api_key"], true);
  return isScalar(node) ? node : undefined;
}

/** Whether a written key holds more than `${NAME}` references (a default counts: it is text). */
function isLiteralValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  return String(value).replace(ENV_ONLY, "").trim() !== "";
}

/** The key node when the manifest writes a literal key (the plain value says first). */
function literalKeyNode(source: ManifestSource): Scalar | undefined {
  if (!isLiteralValue(source.writtenKey)) return undefined;
  const node = keyNode(source);
  return node !== undefined && isLiteralValue(node.value) ? node : undefined;
}

/** Warns, at the key, that a key written in the manifest is better in `GW_API_KEY`. */
export function checkLiteralKey(source: ManifestSource, reporter: Reporter): void {
  if (literalKeyNode(source) === undefined) return;
  reporter.at(
    ["gateway", "api_key"],
    "literal-key",
    `gateway.api_key: the API key is written in the manifest; it is better in the GW_API_KEY environment variable (leave api_key out), or read from another one with \${NAME}. The copy of the manifest kept with each run has it masked, so resuming such a run needs GW_API_KEY`,
    { severity: "warning" },
  );
}

/** Whether the manifest's key is the mask a run's copy carries (the key must come from GW_API_KEY). */
export function hasMaskedKey(source: ManifestSource): boolean {
  return source.writtenKey === MASKED_KEY.slice(1, -1);
}

/**
 * The manifest text to keep with a run: a literal key replaced by `MASKED_KEY`, every other
 * character as written (line breaks inside the key are kept, so lines stay where they were).
 */
export function maskLiteralKey(source: ManifestSource): string {
  const node = literalKeyNode(source);
  if (node?.range === undefined || node.range === null) return source.text;
  const [start, end] = node.range;
  const breaks = "\n".repeat(source.text.slice(start, end).split("\n").length - 1);
  return `${source.text.slice(0, start)}${MASKED_KEY}${breaks}${source.text.slice(end)}`;
}

/**
 * The manifest as checked, for workers of a fleet to run without the file or its environment:
 * every `${NAME}` read already, and no key at all (each worker reads its own GW_API_KEY), nor
 * webhooks (the host that settles the run reads them from the manifest as written).
 */
export function resolvedManifest(source: ManifestSource): string {
  const value = structuredClone(source.value) as {
    gateway?: Record<string, unknown>;
    notify?: unknown;
  } | null;
  if (value?.gateway !== undefined) delete value.gateway.api_key;
  if (value !== null) delete value.notify;
  return stringify(value, { lineWidth: 0 });
}
