/**
 * The manifest's two kinds of substitution, and nothing more:
 * `${ENV}` / `${ENV:-default}` read the environment when the file is loaded;
 * `{{name}}` reads vars, matrix values and `input` when a job is expanded. A var's value may
 * name other vars in turn; what an upstream output brings at run time is data, never read again.
 */

/** `${NAME}` or `${NAME:-default}`: group 1 is the name, group 2 the default. */
export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const ONE_REFERENCE = new RegExp(ENV_REFERENCE.source, "y");

export interface EnvProblem {
  /** Offset of the `${` inside the string. */
  index: number;
  /** The variable's name; undefined when the `${` starts no well-formed reference. */
  name: string | undefined;
}

/** Replaces `${NAME}` and `${NAME:-default}`; reports references with no value and no default. */
export function interpolateEnv(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  problems: EnvProblem[],
): string {
  if (!value.includes("${")) return value;
  // A `${` left unclosed or misspelt would be sent as text.
  for (let index = value.indexOf("${"); index >= 0; index = value.indexOf("${", index + 2)) {
    ONE_REFERENCE.lastIndex = index;
    if (!ONE_REFERENCE.test(value)) problems.push({ index, name: undefined });
  }
  return value.replace(
    ENV_REFERENCE,
    (whole, name: string, fallback: string | undefined, index: number) => {
      const set = env[name];
      if (set !== undefined && set !== "") return set;
      if (fallback !== undefined) return fallback;
      problems.push({ index, name });
      return whole;
    },
  );
}

const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}$/;

/** Anything in double braces: a reference, or something meant as one. */
const BRACED = /\{\{([^{}]*)\}\}/g;
const NAME = /^\s*[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\s*$/;

/** Template variable names used in a string, with their offsets. */
export function templateNames(value: string): { name: string; index: number }[] {
  if (!value.includes("{{")) return [];
  return [...value.matchAll(TEMPLATE)].map((match) => ({
    name: match[1] as string,
    index: match.index,
  }));
}

/** Double braces holding no name gwrun reads (`{{product-name}}`), with their offsets. */
export function unreadableTemplates(value: string): { text: string; index: number }[] {
  if (!value.includes("{{")) return [];
  return [...value.matchAll(BRACED)]
    .filter((match) => !NAME.test(match[1] as string))
    .map((match) => ({ text: match[0], index: match.index }));
}

/** Whether any string in `value` (deeply) holds a `{{`. */
export function hasTemplate(value: unknown): boolean {
  if (typeof value === "string") return value.includes("{{");
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasTemplate);
  return false;
}

/** Where `renderTemplates` reads variables: a map, or `nestedVars` over one. */
export type VarLookup = Pick<ReadonlyMap<string, unknown>, "has" | "get">;

/** Characters a var may grow to once the vars it names are filled in: more is an error. */
export const MAX_VAR_CHARS = 1_000_000;

/**
 * How many characters each var grows to once the vars it names are filled in (at most; a
 * cycle counts once), reckoned without building the text: vars that name each other many
 * times over would otherwise grow beyond any memory.
 */
export function varSizes(vars: VarLookup): (name: string) => number {
  const sizes = new Map<string, number>();
  const open = new Set<string>();
  const size = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const raw = vars.get(name);
    let total = typeof raw === "string" ? raw.length : (JSON.stringify(raw)?.length ?? 0);
    if (open.has(name) || !hasTemplate(raw)) return total;
    open.add(name);
    for (const text of stringsOf(raw))
      for (const { name: next } of templateNames(text)) if (vars.has(next)) total += size(next);
    open.delete(name);
    sizes.set(name, total);
    return total;
  };
  return size;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsOf);
  return [];
}

/**
 * `vars` with each value rendered in turn when it is first read, so a var may name other vars
 * (`subject: "a {{colour}} mug"`). A var met again while it is being rendered (a cycle), or one
 * that would grow past `MAX_VAR_CHARS`, keeps its text as written: validation reports it, and
 * it is never sent.
 */
export function nestedVars(vars: ReadonlyMap<string, unknown>): VarLookup {
  const rendered = new Map<string, unknown>();
  const open = new Set<string>();
  const size = varSizes(vars);
  const lookup: VarLookup = {
    has: (name) => vars.has(name),
    get: (name) => {
      if (rendered.has(name)) return rendered.get(name);
      const raw = vars.get(name);
      if (open.has(name) || !hasTemplate(raw) || size(name) > MAX_VAR_CHARS) return raw;
      open.add(name);
      const value = renderTemplates(raw, lookup);
      open.delete(name);
      rendered.set(name, value);
      return value;
    },
  };
  return lookup;
}

/**
 * Renders `{{name}}` references in every string of `value` (deeply). A string that is exactly
 * one reference takes the variable's own type, so `duration: "{{seconds}}"` stays a number.
 * Names not in `vars` are left as written (reported separately by the caller).
 */
export function renderTemplates(value: unknown, vars: VarLookup): unknown {
  if (typeof value === "string") {
    if (!value.includes("{{")) return value;
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole !== null && vars.has(whole[1] as string)) return vars.get(whole[1] as string);
    return value.replace(TEMPLATE, (text, name: string) =>
      vars.has(name) ? stringify(vars.get(name)) : text,
    );
  }
  if (Array.isArray(value)) return value.map((item) => renderTemplates(item, vars));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = renderTemplates(item, vars);
    return out;
  }
  return value;
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * `vars` that also read `{{name.field}}`: a field of an object value (a row, a var, a matrix
 * value), at any depth. A name the vars hold whole (`input.url`) is read as it is.
 */
export function withFields(vars: VarLookup): VarLookup {
  return {
    has: (name) => vars.has(name) || fieldOf(vars, name) !== MISSING,
    get: (name) => {
      if (vars.has(name)) return vars.get(name);
      const value = fieldOf(vars, name);
      return value === MISSING ? undefined : value;
    },
  };
}

const MISSING = Symbol("missing");

function fieldOf(vars: VarLookup, name: string): unknown {
  for (let dot = name.indexOf("."); dot !== -1; dot = name.indexOf(".", dot + 1)) {
    const base = name.slice(0, dot);
    if (!vars.has(base)) continue;
    let value = vars.get(base);
    for (const step of name.slice(dot + 1).split(".")) {
      if (value === null || typeof value !== "object" || !Object.hasOwn(value, step))
        return MISSING;
      value = (value as Record<string, unknown>)[step];
    }
    return value;
  }
  return MISSING;
}
