import { readFile } from "node:fs/promises";
import path from "node:path";
import jsYaml from "js-yaml";
import { type Document, LineCounter, parseDocument } from "yaml";
import { type Diagnostic, diagnosticAt } from "./diagnostics.js";
import { type EnvProblem, interpolateEnv } from "./interpolate.js";
import { Reporter } from "./report.js";

// Values are read with js-yaml, which is fast and lean; the position-keeping document of the
// `yaml` package is built only when a diagnostic needs to point at the text. Both follow the
// YAML 1.2 core schema, with merge keys.
const MERGE_KEYS = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types.merge;
const VALUE_SCHEMA = jsYaml.CORE_SCHEMA.extend([MERGE_KEYS]);

/** A manifest file read and parsed, with everything needed to point at its text. */
export class ManifestSource {
  readonly dir: string;
  /** The plain value with `${ENV}` references replaced; undefined when the YAML is broken. */
  value: unknown;
  readonly diagnostics: Diagnostic[] = [];
  #doc: Document | undefined;
  #lineCounter: LineCounter | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.dir = path.dirname(path.resolve(file));
  }

  /** The YAML document with source ranges, parsed on first use. */
  get doc(): Document {
    if (this.#doc === undefined) {
      this.#lineCounter = new LineCounter();
      this.#doc = parseDocument(this.text, {
        lineCounter: this.#lineCounter,
        prettyErrors: false,
        merge: true,
        uniqueKeys: true,
      });
    }
    return this.#doc;
  }

  get lineCounter(): LineCounter {
    void this.doc;
    return this.#lineCounter as LineCounter;
  }
}

/** Reads and parses a manifest file; YAML and `${ENV}` problems come back as diagnostics. */
export async function loadManifest(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ManifestSource> {
  const text = await readFile(file, "utf8");
  return parseManifest(text, file, env);
}

/** Parses manifest text; `file` names it in diagnostics and anchors relative paths. */
export function parseManifest(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ManifestSource {
  const source = new ManifestSource(file, text);
  let value: unknown;
  try {
    value = jsYaml.load(text, { schema: VALUE_SCHEMA, filename: file });
  } catch (error) {
    reportSyntax(source, error as jsYaml.YAMLException);
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
  const problems: (EnvProblem & { path: (string | number)[] })[] = [];
  source.value = interpolateDeep(value, env, [], problems);
  if (problems.length > 0) {
    const reporter = new Reporter(source);
    for (const { path: at, index, name } of problems) {
      reporter.at(
        at,
        "env",
        `environment variable ${name} is not set and has no default (write \${${name}:-default})`,
        { inner: index },
      );
    }
    source.diagnostics.push(...reporter.diagnostics);
  }
  return source;
}

/** Syntax errors, placed by the position-keeping parser (or by js-yaml's mark if only it objects). */
function reportSyntax(source: ManifestSource, error: jsYaml.YAMLException): void {
  const { doc, lineCounter, file } = source;
  for (const problem of doc.errors) {
    source.diagnostics.push(
      diagnosticAt(
        file,
        lineCounter,
        { offset: problem.pos[0], length: 1 },
        "yaml-syntax",
        firstLine(problem.message),
      ),
    );
  }
  if (doc.errors.length === 0) {
    const offset = error.mark?.position ?? 0;
    source.diagnostics.push(
      diagnosticAt(
        file,
        lineCounter,
        { offset, length: 1 },
        "yaml-syntax",
        error.reason ?? error.message,
      ),
    );
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
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
