import { readNamedFile } from "../core/file-gate.js";
import { commandIo } from "../core/io.js";
import { diagnosticAt } from "./diagnostics.js";
import { type EnvProblem, interpolateEnv } from "./interpolate.js";
import { pathLabel } from "./job-path.js";
import { Reporter } from "./report.js";
import { ManifestSource } from "./source.js";
import { MAX_MANIFEST_VALUES, oversizedAt } from "./value-size.js";
import { readYamlValue, syntaxProblems } from "./yaml-syntax.js";

/** Reads and parses a manifest file; YAML and `${ENV}` problems come back as diagnostics. */
export async function loadManifest(
  file: string,
  env: Readonly<Record<string, string | undefined>> = commandIo().env,
): Promise<ManifestSource> {
  const text = await readNamedFile(file);
  return parseManifest(text, file, env);
}

/** Parses manifest text; `file` names it in diagnostics and anchors relative paths. */
export function parseManifest(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>> = commandIo().env,
): ManifestSource {
  const source = new ManifestSource(file, text);
  let value: unknown;
  try {
    value = readYamlValue(text, file);
  } catch {
    reportSyntax(source);
    return source;
  }
  if (value === undefined || value === null) {
    source.diagnostics.push(
      diagnosticAt(
        file,
        source.lineCounter,
        { offset: 0, length: 0 },
        "empty",
        "the manifest is empty; it needs at least version: 1 and jobs:",
      ),
    );
    return source;
  }
  // Aliases of aliases are refused before anything walks what they expand to.
  const oversized = oversizedAt(value);
  if (oversized !== undefined) {
    const reporter = new Reporter(source);
    const where = oversized.path.length === 0 ? "the manifest" : pathLabel(oversized.path);
    reporter.at(
      oversized.path,
      "too-large",
      `${where} expands to more than ${MAX_MANIFEST_VALUES.toLocaleString("en-US")} values (YAML aliases inside aliased values multiply); the manifest holds ${Number.isFinite(oversized.size) ? oversized.size.toLocaleString("en-US") : "endlessly many: an alias inside itself"}: write the values out, or alias fewer`,
    );
    source.diagnostics.push(...reporter.diagnostics);
    return source;
  }
  source.writtenKey = writtenKeyOf(value);
  source.writtenNotify = structuredClone((value as { notify?: unknown }).notify);
  const problems: (EnvProblem & { path: (string | number)[] })[] = [];
  source.value = interpolateDeep(value, env, [], problems);
  if (problems.length > 0) {
    const reporter = new Reporter(source);
    for (const { path: at, index, name } of problems) {
      const message =
        name === undefined
          ? `\${ starts an environment reference that is not closed: write \${NAME} or \${NAME:-default}`
          : `environment variable ${name} is not set and has no default (write \${${name}:-default})`;
      reporter.at(at, "env", message, { inner: index });
    }
    source.diagnostics.push(...reporter.diagnostics);
  }
  return source;
}

function writtenKeyOf(value: unknown): unknown {
  const gateway = (value as { gateway?: unknown }).gateway;
  return typeof gateway === "object" && gateway !== null
    ? (gateway as { api_key?: unknown }).api_key
    : undefined;
}

/** The first syntax error, and any later one that is not a consequence of it, with hints. */
function reportSyntax(source: ManifestSource): void {
  const { lineCounter, file } = source;
  for (const { line, col, message, hint } of syntaxProblems(source.text)) {
    const offset = (lineCounter.lineStarts[line - 1] ?? 0) + col - 1;
    const at = { offset, length: 1 };
    source.diagnostics.push(
      diagnosticAt(file, lineCounter, at, "yaml-syntax", message, "error", hint),
    );
  }
}

/** Replaces `${ENV}` in every string, in place; `at` is the path so far (a shared stack). */
function interpolateDeep(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  at: (string | number)[],
  problems: (EnvProblem & { path: (string | number)[] })[],
): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    const found: EnvProblem[] = [];
    const result = interpolateEnv(value, env, found);
    for (const problem of found) problems.push({ ...problem, path: [...at] });
    return result;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      at.push(i);
      value[i] = interpolateDeep(value[i], env, at, problems);
      at.pop();
    }
    return value;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      at.push(key);
      record[key] = interpolateDeep(record[key], env, at, problems);
      at.pop();
    }
  }
  return value;
}
