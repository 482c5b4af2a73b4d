import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
} from "yaml";
import { type Diagnostic, diagnosticAt } from "./diagnostics.js";
import { type EnvProblem, interpolateEnv } from "./interpolate.js";
import { offsetInScalar } from "./yaml-nodes.js";

/** A manifest file read and parsed, with everything needed to point at its text. */
export interface ManifestSource {
  file: string;
  dir: string;
  text: string;
  doc: Document;
  lineCounter: LineCounter;
  /** The plain value, with `${ENV}` references replaced. */
  value: unknown;
  diagnostics: Diagnostic[];
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
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    uniqueKeys: true,
  });
  const diagnostics: Diagnostic[] = [];
  for (const error of doc.errors) {
    diagnostics.push(
      diagnosticAt(
        file,
        lineCounter,
        { offset: error.pos[0], length: 1 },
        "yaml-syntax",
        firstLine(error.message),
      ),
    );
  }
  for (const warning of doc.warnings) {
    diagnostics.push(
      diagnosticAt(
        file,
        lineCounter,
        { offset: warning.pos[0], length: 1 },
        "yaml",
        firstLine(warning.message),
        "warning",
      ),
    );
  }
  let value: unknown;
  if (doc.errors.length === 0) {
    const converter = new Converter(doc, env);
    value = converter.convert(doc.contents as Node | null);
    for (const { offset, name } of converter.problems) {
      diagnostics.push(
        diagnosticAt(
          file,
          lineCounter,
          { offset, length: name.length + 3 },
          "env",
          `environment variable ${name} is not set and has no default (write \${${name}:-default})`,
        ),
      );
    }
  }
  return {
    file,
    dir: path.dirname(path.resolve(file)),
    text,
    doc,
    lineCounter,
    value,
    diagnostics,
  };
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** YAML nodes to plain values, replacing `${ENV}` in strings and noting where one has no value. */
class Converter {
  readonly problems: { offset: number; name: string }[] = [];

  constructor(
    private readonly doc: Document,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  convert(node: Node | null | undefined): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.convert(node.resolve(this.doc) as Node | undefined);
    if (isScalar(node)) {
      return typeof node.value === "string" ? this.interpolate(node.value, node) : node.value;
    }
    if (isSeq(node)) return node.items.map((item) => this.convert(item as Node));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items as Pair[]) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (key === "<<") {
          Object.assign(out, this.mergeSource(pair.value as Node));
          continue;
        }
        out[key] = this.convert(pair.value as Node | null);
      }
      return out;
    }
    return null;
  }

  private mergeSource(node: Node): Record<string, unknown> {
    const value = this.convert(node);
    if (Array.isArray(value)) return Object.assign({}, ...value.reverse());
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  }

  private interpolate(value: string, node: Node): string {
    const problems: EnvProblem[] = [];
    const result = interpolateEnv(value, this.env, problems);
    for (const problem of problems) {
      this.problems.push({
        offset: offsetInScalar(node, problem.index),
        name: problem.name,
      });
    }
    return result;
  }
}
