import { isRecord } from "../core/values.js";
import { MAX_VAR_CHARS, templateNames, unreadableTemplates, varSizes } from "./interpolate.js";
import type { Reporter } from "./report.js";

/**
 * A var's value may name other vars, and so on: the chain a request's `{{name}}` starts must
 * end in values. A chain that comes back to itself (`a → b → a`) or reaches a name defined
 * nowhere would leave `{{…}}` in the request, sent as written and paid for: each is an error
 * at the value where the chain breaks, naming the chain. So is a var that would grow past
 * `MAX_VAR_CHARS` (vars naming vars many times over), which is not filled in either.
 */

type Path = (string | number)[];

/** Where a request reads a var: the names defined there besides the vars, and who reads. */
export interface ChainStart {
  /** Names defined where the var is read (the job's matrix keys, date, tick, input.*). */
  defined: ReadonlySet<string>;
  /** Names that win over vars of the same name there (a job's matrix keys). */
  shadowing: ReadonlySet<string>;
  /** Who reads it, for messages: `job hero`, `defaults`. */
  reader: string;
}

export class VarChains {
  readonly #vars: Record<string, unknown>;
  readonly #order: string[];
  readonly #reporter: Reporter;
  readonly #undefinedMessage: (name: string, defined: readonly string[]) => string;
  readonly #cycles = new Set<string>();
  readonly #size: (name: string) => number;
  readonly #tooLong = new Set<string>();

  constructor(
    vars: Record<string, unknown>,
    reporter: Reporter,
    undefinedMessage: (name: string, defined: readonly string[]) => string,
  ) {
    this.#vars = vars;
    this.#order = Object.keys(vars);
    this.#reporter = reporter;
    this.#undefinedMessage = undefinedMessage;
    this.#size = varSizes(new Map(Object.entries(vars)));
  }

  /** Follows the var `name` read at `start`, reporting where its chain breaks. */
  follow(name: string, start: ChainStart): void {
    if (!this.#isVar(name, start)) return;
    const size = this.#size(name);
    if (size > MAX_VAR_CHARS) {
      if (!this.#tooLong.has(name))
        this.#reporter.at(
          ["vars", name],
          "var-too-long",
          `{{${name}}} would grow to ${size.toLocaleString("en-US")} characters once the vars it names are filled in, more than ${MAX_VAR_CHARS.toLocaleString("en-US")}`,
        );
      this.#tooLong.add(name);
      return;
    }
    this.#walk([name], start, new Set());
  }

  #isVar(name: string, start: ChainStart): boolean {
    return Object.hasOwn(this.#vars, name) && !start.shadowing.has(name);
  }

  /** Depth first from the chain's last var; `explored` vars were followed to their ends. */
  #walk(chain: string[], start: ChainStart, explored: Set<string>): void {
    const name = chain.at(-1) as string;
    if (explored.has(name)) return;
    for (const { text, path } of stringsIn(this.#vars[name], ["vars", name])) {
      for (const { text: braced, index } of unreadableTemplates(text)) {
        this.#reporter.at(
          path,
          "template-syntax",
          `${braced} is no name gwrun reads (letters, digits and _) and would be sent as written; ${start.reader} reads it through ${chain.join(" → ")}`,
          { inner: index },
        );
      }
      for (const { name: next, index } of templateNames(text)) {
        const at = chain.indexOf(next);
        if (at >= 0) this.#cycle([...chain.slice(at), next]);
        else if (this.#isVar(next, start)) this.#walk([...chain, next], start, explored);
        else if (!start.defined.has(next)) {
          const defined = [...this.#order, ...start.defined];
          this.#reporter.at(
            path,
            "undefined-variable",
            `${this.#undefinedMessage(next, defined)}; ${start.reader} reads it through ${[...chain, next].join(" → ")}`,
            { inner: index },
          );
        }
      }
    }
    explored.add(name);
  }

  /**
   * A cycle is reported once, however it was entered: starting from its var written first,
   * at the reference that closes it.
   */
  #cycle(found: readonly string[]): void {
    const loop = found.slice(0, -1);
    const first = loop.reduce((a, b) => (this.#order.indexOf(b) < this.#order.indexOf(a) ? b : a));
    const at = loop.indexOf(first);
    const ordered = [...loop.slice(at), ...loop.slice(0, at), first];
    const key = ordered.join("\u0000");
    if (this.#cycles.has(key)) return;
    this.#cycles.add(key);
    const closer = ordered.at(-2) as string;
    const place = firstReference(this.#vars[closer], ["vars", closer], first);
    this.#reporter.at(
      place?.path ?? ["vars", closer],
      "template-cycle",
      `{{${first}}} never resolves: the vars refer to each other, ${ordered.join(" → ")}`,
      { inner: place?.index },
    );
  }
}

/** Every string in `value` (deeply), with its path. */
function stringsIn(value: unknown, path: Path): { text: string; path: Path }[] {
  if (typeof value === "string") return value.includes("{{") ? [{ text: value, path }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsIn(item, [...path, i]));
  if (isRecord(value))
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, [...path, key]));
  return [];
}

function firstReference(
  value: unknown,
  path: Path,
  name: string,
): { path: Path; index: number } | undefined {
  for (const string of stringsIn(value, path)) {
    const found = templateNames(string.text).find((reference) => reference.name === name);
    if (found !== undefined) return { path: string.path, index: found.index };
  }
  return undefined;
}
