import type { Node } from "yaml";
import { type Diagnostic, diagnosticAt, type Span } from "./diagnostics.js";
import type { ManifestSource } from "./load.js";
import { locate, offsetInScalar, type Path, spanOf } from "./yaml-nodes.js";

/** Where a diagnostic points inside the value at a path. */
export interface PointOptions {
  /** Point at the key rather than the value (unknown fields). */
  key?: boolean;
  /** Offset inside the scalar's text (e.g. where a `{{name}}` starts). */
  inner?: number;
  severity?: Diagnostic["severity"];
}

/** Turns paths into the manifest's value into diagnostics at the matching text. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly source: ManifestSource) {}

  /** The span of `path`, starting at `node` (default: the document root). */
  span(path: Path, options: PointOptions = {}, node?: Node): Span {
    const root = node ?? (this.source.doc.contents as Node);
    const found = locate(this.source.doc, root, path);
    const target =
      options.key === true && found.key !== undefined && found.depth === path.length
        ? found.key
        : found.node;
    const span = spanOf(target);
    if (options.inner !== undefined && found.depth === path.length) {
      return { offset: offsetInScalar(found.node, options.inner), length: 1 };
    }
    return span;
  }

  at(path: Path, rule: string, message: string, options: PointOptions = {}, node?: Node): void {
    this.atSpan(this.span(path, options, node), rule, message, options.severity);
  }

  atSpan(
    span: Span,
    rule: string,
    message: string,
    severity: Diagnostic["severity"] = "error",
  ): void {
    this.diagnostics.push(
      diagnosticAt(this.source.file, this.source.lineCounter, span, rule, message, severity),
    );
  }
}
