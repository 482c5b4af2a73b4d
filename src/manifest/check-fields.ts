import { didYouMean } from "../core/suggest.js";
import { isRecord } from "../core/values.js";
import type { JobSpec } from "./types.js";

/**
 * `{{name.field}}`: a field of a row, of an object value of `vars` or of a matrix, or of an
 * upstream task's variables (`{{input.vars.style}}`, `{{input.row.name}}`). Whether such a name
 * reads something, and if not, what the job offers instead.
 */

/** What a job's templates may read fields of. */
export interface FieldScope {
  spec: JobSpec;
  vars: Record<string, unknown>;
  /** The job named by `from:`, when it exists. */
  upstream: JobSpec | undefined;
}

/** Why the dotted `name` reads nothing in `scope`; undefined when it reads a value. */
export function fieldProblem(name: string, scope: FieldScope): string | undefined {
  const [base = "", ...rest] = name.split(".");
  const { spec } = scope;
  if (base === "row") return rowProblem(name, rest, spec, "");
  if (base === "input" && (rest[0] === "vars" || rest[0] === "row")) {
    const upstream = scope.upstream;
    if (spec.from === undefined) return `{{${name}}} is only available in a job with from:`;
    if (upstream === undefined) return undefined; // the unknown `from:` is the error
    if (rest[0] === "row") return rowProblem(name, rest.slice(1), upstream, "input.");
    const [variable = "", ...inner] = rest.slice(1);
    if (variable === "row") return rowProblem(name, inner, upstream, "input.vars.");
    const offered = Object.keys(upstream.matrix ?? {});
    if (!offered.includes(variable))
      return `{{${name}}}: job "${upstream.id}" has no variable "${variable}"${didYouMean(variable, offered)}${listOf("its variables are", offered, upstream.rows === undefined ? [] : ["row"])}`;
    return valuesProblem(name, upstream.matrix?.[variable] ?? [], inner, variable);
  }
  const own = spec.matrix?.[base];
  if (own !== undefined) return valuesProblem(name, own, rest, base);
  if (Object.hasOwn(scope.vars, base)) return valuesProblem(name, [scope.vars[base]], rest, base);
  return undefined;
}

function rowProblem(
  name: string,
  rest: string[],
  spec: JobSpec,
  prefix: string,
): string | undefined {
  const rows = spec.rows;
  if (rows === undefined)
    return prefix === ""
      ? `{{${name}}} reads a row, but job "${spec.id}" has no rows:`
      : `{{${name}}}: job "${spec.id}" has no rows:`;
  const [column = ""] = rest;
  if (rest.length === 0 || !rows.readable || rows.columns.includes(column)) return undefined;
  const where = rows.written ?? `the rows of job "${spec.id}"`;
  return `{{${name}}}: ${where} has no column "${column}"${didYouMean(column, rows.columns)}; its columns are ${rows.columns.join(", ")}`;
}

/** A field path must reach a value in every value the name may take. */
function valuesProblem(
  name: string,
  values: readonly unknown[],
  path: readonly string[],
  base: string,
): string | undefined {
  for (const value of values) {
    let current: unknown = value;
    for (const step of path) {
      if (!isRecord(current))
        return `{{${name}}}: ${base} has no fields here (${JSON.stringify(value)?.slice(0, 40)} is not an object)`;
      if (!Object.hasOwn(current, step))
        return `{{${name}}}: ${base} has no field "${step}"${didYouMean(step, Object.keys(current))}${listOf("its fields are", Object.keys(current))}`;
      current = current[step];
    }
  }
  return undefined;
}

function listOf(lead: string, names: readonly string[], more: readonly string[] = []): string {
  const all = [...names, ...more];
  return all.length === 0 ? "" : `; ${lead} ${all.join(", ")}`;
}

/**
 * `from.where` must name what the upstream's tasks have: a matrix key (or a field of its
 * values), `row.<column>` or a column of its rows. Why `name` is none of these; else undefined.
 */
export function whereProblem(name: string, upstream: JobSpec): string | undefined {
  const [base = "", next = ""] = name.split(".");
  const matrix = Object.keys(upstream.matrix ?? {});
  const columns = upstream.rows?.columns ?? [];
  if (matrix.includes(base) || upstream.rows?.readable === false) return undefined;
  if (base === "row" ? columns.includes(next) : columns.includes(name)) return undefined;
  const offered = [...matrix, ...columns];
  return `where: job "${upstream.id}" has no variable "${name}"${didYouMean(name, offered)}${listOf("it has", offered)}`;
}
