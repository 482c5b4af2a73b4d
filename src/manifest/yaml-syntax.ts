import jsYaml from "js-yaml";
import { LineCounter, parseDocument } from "yaml";
import { hintFor, ITEM, indentOf, isContent } from "./yaml-hints.js";

// Values are read with js-yaml, which is fast and lean; the position-keeping document of the
// `yaml` package is built only when a diagnostic needs to point at the text. Both follow the
// YAML 1.2 core schema, with merge keys.
const MERGE_KEYS = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types.merge;
// Implicit, so a plain `<<` key merges; given as a list it would only apply to an explicit `!!merge`.
const VALUE_SCHEMA = jsYaml.CORE_SCHEMA.extend({ implicit: [MERGE_KEYS] });

/** Options of the position-keeping parser. */
export const DOCUMENT_OPTIONS = { prettyErrors: false, merge: true, uniqueKeys: true } as const;

/** The plain value of YAML text; throws js-yaml's YAMLException when the text is not YAML. */
export function readYamlValue(text: string, file: string): unknown {
  return jsYaml.load(text, { schema: VALUE_SCHEMA, filename: file });
}

/** A YAML syntax error at a 1-based line and column, with advice when it is a known trap. */
export interface SyntaxProblem {
  line: number;
  col: number;
  message: string;
  hint?: string;
}

/** The first error and at most this many more that stand on their own. */
const MORE_SHOWN = 2;

/**
 * The syntax errors worth showing: the first, then up to two more that remain once the
 * top-level entries or `jobs:` items holding the earlier ones are blanked out. A parser that
 * has lost its way reports every line after the first mistake; those are not shown.
 */
export function syntaxProblems(text: string): SyntaxProblem[] {
  const original = text.split("\n");
  const sections = sectionsOf(original);
  const problems: SyntaxProblem[] = [];
  let lines = original;
  let blankedUpTo = -1;
  while (problems.length <= MORE_SHOWN) {
    const found = firstProblem(lines);
    if (found === undefined) break;
    const { problem, parserLine } = found;
    const first = Math.min(parserLine, problem.line - 1);
    const last = Math.max(parserLine, problem.line - 1);
    const range = blankRange(sections, first, last);
    // Independent only if the text before it reads well: nothing left open there runs into it.
    if (problems.length > 0 && (first <= blankedUpTo || !isYaml(lines.slice(0, range.first)))) {
      break;
    }
    problems.push(problem);
    blankedUpTo = range.last;
    lines = lines.map((line, index) => (index >= range.first && index <= range.last ? "" : line));
  }
  return problems;
}

function isYaml(lines: readonly string[]): boolean {
  try {
    readYamlValue(lines.join("\n"), "");
    return true;
  } catch {
    return false;
  }
}

/** The first error js-yaml makes gwrun stop at, placed by the position-keeping parser. */
function firstProblem(
  lines: readonly string[],
): { problem: SyntaxProblem; parserLine: number } | undefined {
  const text = lines.join("\n");
  let error: jsYaml.YAMLException | undefined;
  try {
    readYamlValue(text, "");
  } catch (thrown) {
    error = thrown as jsYaml.YAMLException;
  }
  if (error === undefined) return undefined;
  const counter = new LineCounter();
  const doc = parseDocument(text, { ...DOCUMENT_OPTIONS, lineCounter: counter });
  const [earliest] = [...doc.errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const { line, col } = counter.linePos(earliest?.pos[0] ?? error.mark?.position ?? 0);
  const message =
    earliest === undefined ? (error.reason ?? error.message) : firstLine(earliest.message);
  const hint = hintFor(lines, {
    line: line - 1,
    col: col - 1,
    jsReason: error.reason,
    jsLine: error.mark?.line,
  });
  const problem =
    hint === undefined
      ? { line, col, message }
      : { line: hint.line + 1, col: hint.col + 1, message, hint: hint.hint };
  return { problem, parserLine: line - 1 };
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/** A run of lines: one top-level entry, or one item of a top-level list such as `jobs:`. */
interface Section {
  first: number;
  last: number;
  /** The line of the top-level key whose list this item belongs to. */
  header?: number;
}

function sectionsOf(lines: readonly string[]): Section[] {
  const sections: Section[] = [];
  let header: number | undefined;
  let itemIndent: number | undefined;
  let decided = false; // whether the first line under `header` was seen
  lines.forEach((line, index) => {
    const current = sections[sections.length - 1];
    if (!isContent(line)) {
      if (current !== undefined) current.last = index;
      return;
    }
    const indent = indentOf(line);
    const item = ITEM.test(line);
    const start = sections.length === 0 ? 0 : index;
    if (item && header !== undefined && (!decided || indent === itemIndent)) {
      itemIndent = indent;
      decided = true;
      sections.push({ first: start, last: index, header });
    } else if (indent === 0 && !item) {
      header = index;
      itemIndent = undefined;
      decided = false;
      sections.push({ first: start, last: index });
    } else if (current === undefined) {
      sections.push({ first: 0, last: index });
    } else {
      decided = true;
      current.last = index;
    }
  });
  return sections;
}

/** The lines to blank for an error on lines first..last: whole sections, a key with its items. */
function blankRange(sections: readonly Section[], first: number, last: number) {
  const holding = sections.filter((s) => s.last >= first && s.first <= last);
  const from = holding[0]?.first ?? first;
  let to = holding[holding.length - 1]?.last ?? last;
  for (const { header, last: end } of sections) {
    if (header !== undefined && holding.some((s) => s.first <= header && header <= s.last)) {
      to = Math.max(to, end);
    }
  }
  return { first: from, last: to };
}
