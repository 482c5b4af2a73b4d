import type { ExpandedJob, JobSpec } from "../manifest/index.js";
import type { Family, RequestBody } from "./types.js";
import { type RequestIssue, validateRequest } from "./validate.js";

/**
 * CSV and TSV cells are text. A request field written as exactly `{{row.<field>}}` whose rule
 * wants a number (or true/false) takes the cell's value when the cell holds one; a cell that
 * does not stays text, and the family's rule reports it. What a job's fields need is learnt
 * from its first row that needs it, so most rows are checked once.
 */

const WHOLE_ROW = /^\{\{\s*row\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;
/** Rules broken by text where a number or boolean belongs. */
const TYPE_RULES: ReadonlySet<string> = new Set(["type", "json-number"]);
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Per job: fields written as one row cell, and those found to need a value, not text. */
export type CellRules = Map<JobSpec, { whole: Set<string>; typed: Set<string> }>;

/** The cell's value for a field that wants one: a number or a boolean; undefined for text. */
export function cellValue(cell: string): number | boolean | undefined {
  const text = cell.trim();
  if (NUMBER.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  return undefined;
}

/** Validates a request whose cells may need to be numbers: the body as sent, and its issues. */
export function validateWithCells(
  family: Family,
  job: ExpandedJob,
  body: RequestBody,
  rules: CellRules,
): { body: RequestBody; issues: RequestIssue[] } {
  const { spec } = job;
  if (job.row === undefined || spec.rows?.textCells !== true)
    return { body, issues: validateRequest(family, body) };
  let rule = rules.get(spec);
  if (rule === undefined) {
    const whole = Object.keys(spec.fields).filter(
      (key) => typeof spec.fields[key] === "string" && WHOLE_ROW.test(spec.fields[key] as string),
    );
    rule = { whole: new Set(whole), typed: new Set() };
    rules.set(spec, rule);
  }
  let sent = typed(body, rule.typed);
  let issues = validateRequest(family, sent);
  for (let round = 0; round < rule.whole.size; round++) {
    const wanted = issues
      .filter((issue) => TYPE_RULES.has(issue.rule) && issue.path.length === 1)
      .map((issue) => issue.path[0] as string)
      .filter(
        (field) =>
          rule.whole.has(field) &&
          !rule.typed.has(field) &&
          typeof sent[field] === "string" &&
          cellValue(sent[field] as string) !== undefined,
      );
    if (wanted.length === 0) break;
    for (const field of wanted) rule.typed.add(field);
    sent = typed(body, rule.typed);
    issues = validateRequest(family, sent);
  }
  return { body: sent, issues };
}

function typed(body: RequestBody, fields: ReadonlySet<string>): RequestBody {
  if (fields.size === 0) return body;
  const out: RequestBody = { ...body };
  for (const field of fields) {
    const value = out[field];
    const converted = typeof value === "string" ? cellValue(value) : undefined;
    if (converted !== undefined) out[field] = converted;
  }
  return out;
}
