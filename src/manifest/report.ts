import type { Node } from "yaml";
import {
  type Diagnostic,
  diagnosticAt,
  diagnosticIn,
  positionIn,
  type Span,
} from "./diagnostics.js";
import type { ManifestSource } from "./source.js";
import { locate, offsetInScalar, type Path, spanOf } from "./yaml-nodes.js";

/** Where a diagnostic points inside the value at a path. */
export interface PointOptions {
  /** Point at the key rather than the value (unknown fields). */
  key?: boolean;
  /** Offset inside the scalar's text (e.g. where a `{{name}}` starts). */
  inner?: number;
  severity?: Diagnostic["severity"];
  /** What to do about it, shown under the message. */
  hint?: string;
}

/** Turns paths into the manifest's value into diagnostics at the matching text. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly source: ManifestSource) {}

  /** The span of `base` + `path` from the document root (the text of the value, or its key). */
  span(path: Path, options: PointOptions = {}, base: Path = []): Span {
    const full = [...base, ...path];
    const found = locate(this.source.doc, this.source.doc.contents as Node, full);
    const reached = found.depth === full.length;
    const target =
      options.key === true && found.key !== undefined && reached ? found.key : found.node;
    const span = spanOf(target);
    if (options.inner !== undefined && reached) {
      return { offset: offsetInScalar(found.node, options.inner), length: 1 };
    }
    return span;
  }

  at(path: Path, rule: string, message: string, options: PointOptions = {}, base: Path = []): void {
    // A string read from a file: the offset inside it is a place in that file.
    const included =
      options.inner === undefined
        ? undefined
        : this.source.included.get(JSON.stringify([...base, ...path]));
    if (included !== undefined && options.inner !== undefined) {
      const position = positionIn(included.text, options.inner);
      this.atFile(included.file, included.text, position, rule, message, options.severity);
      return;
    }
    this.atSpan(this.span(path, options, base), rule, message, options.severity, options.hint);
  }

  /** A problem in another file the manifest names (a data or prompt file), at a line and column. */
  atFile(
    file: string,
    text: string,
    position: { line: number; col: number },
    rule: string,
    message: string,
    severity: Diagnostic["severity"] = "error",
  ): void {
    this.diagnostics.push(diagnosticIn(file, text, position, rule, message, severity));
  }

  atSpan(
    span: Span,
    rule: string,
    message: string,
    severity: Diagnostic["severity"] = "error",
    hint?: string,
  ): void {
    this.diagnostics.push(
      diagnosticAt(this.source.file, this.source.lineCounter, span, rule, message, severity, hint),
    );
  }
}
