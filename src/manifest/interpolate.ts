/**
 * The manifest's two kinds of substitution, and nothing more:
 * `${ENV}` / `${ENV:-default}` read the environment when the file is loaded;
 * `{{name}}` reads vars, matrix values and `input` when a job is expanded.
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

/** Template variable names used in a string, with their offsets. */
export function templateNames(value: string): { name: string; index: number }[] {
  if (!value.includes("{{")) return [];
  return [...value.matchAll(TEMPLATE)].map((match) => ({
    name: match[1] as string,
    index: match.index,
  }));
}

/**
 * Renders `{{name}}` references in every string of `value` (deeply). A string that is exactly
 * one reference takes the variable's own type, so `duration: "{{seconds}}"` stays a number.
 * Names not in `vars` are left as written (reported separately by the caller).
 */
export function renderTemplates(value: unknown, vars: ReadonlyMap<string, unknown>): unknown {
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
