import { isRecord } from "../core/values.js";

/**
 * An upstream task's variables in a dependant: `from: { job, where }` keeps only the outputs
 * of upstream tasks whose variables match, and `{{input.vars.<name>}}` / `{{input.row.<field>}}`
 * read them. They are read from the upstream's recorded `vars`, so a dependant made by a
 * later process reads the same values.
 */

/** The value at a dotted path of `vars` (`row.colour`); undefined when there is none. */
export function varAt(vars: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = vars;
  for (const step of dotted.split(".")) {
    if (!isRecord(value) || !Object.hasOwn(value, step)) return undefined;
    value = value[step];
  }
  return value;
}

/** Whether an upstream task with `vars` is one `where` keeps; values compare as text (CSV cells are text). */
export function matchesWhere(
  where: Record<string, unknown> | undefined,
  vars: Record<string, unknown>,
): boolean {
  if (where === undefined) return true;
  for (const [name, wanted] of Object.entries(where)) {
    // `where: { colour: blue }` of a job with rows means the row's colour.
    const value = varAt(vars, name) ?? varAt(vars, `row.${name}`);
    if (value === undefined || String(value) !== String(wanted)) return false;
  }
  return true;
}

const INPUT_VAR =
  /\{\{\s*input\.(vars|row)\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;
const WHOLE_INPUT_VAR = new RegExp(`^${INPUT_VAR.source}$`);

/**
 * `text` with its `{{input.vars.…}}` and `{{input.row.…}}` filled in from the upstream's
 * variables; a string that is one reference takes the value's own type. Names the upstream
 * does not have are pushed to `missing` and left as written.
 */
export function bindUpstreamVars(
  text: string,
  vars: Record<string, unknown>,
  missing: string[],
): unknown {
  if (!text.includes("{{")) return text;
  const lookUp = (kind: string, name: string) => varAt(vars, kind === "row" ? `row.${name}` : name);
  const whole = WHOLE_INPUT_VAR.exec(text);
  if (whole !== null) {
    const value = lookUp(whole[1] as string, whole[2] as string);
    if (value !== undefined) return value;
  }
  return text.replace(INPUT_VAR, (written, kind: string, name: string) => {
    const value = lookUp(kind, name);
    if (value === undefined) {
      missing.push(written);
      return written;
    }
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}
