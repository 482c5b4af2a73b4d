import {
  type Diagnostic,
  type ExpandedJob,
  type ExpandedManifest,
  jobPath,
  reportAtRow,
  rowFieldIn,
} from "../manifest/index.js";
import type { RequestIssue } from "./validate.js";

/**
 * A request's problems placed in the manifest: at the job, its matrix entry, `defaults:` or a
 * row's cell; one problem of many combinations told once, with a count.
 */

const UPSTREAM_VAR = /^\{\{\s*input\.(vars|row)\./;

/** Places a request issue at the text it came from: the job, its matrix, or `defaults:`. */
export function reportIssue(
  manifest: ExpandedManifest,
  job: ExpandedJob,
  issue: RequestIssue,
  seen: Seen,
): void {
  const { reporter } = manifest;
  const { spec } = job;
  const [field] = issue.path;
  const key = issue.rule === "unknown-field";
  const label =
    issue.path.length === 0
      ? "request"
      : issue.path
          .map((step) => (typeof step === "number" ? `[${step}]` : step))
          .join(".")
          .replace(/\.\[/g, "[");
  let note = "";
  let span = reporter.span([], {}, jobPath(spec));
  const inMatrix =
    typeof field === "string" &&
    spec.matrix?.[field] !== undefined &&
    job.matrixIndex[field] !== undefined;
  if (inMatrix) {
    span = reporter.span(
      ["matrix", field, job.matrixIndex[field] as number, ...issue.path.slice(1)],
      { key },
      jobPath(spec),
    );
  } else if (typeof field === "string" && field in spec.fields) {
    span = reporter.span(issue.path, { key }, jobPath(spec));
  } else if (typeof field === "string" && job.fromDefaults.has(field)) {
    span = reporter.span(["defaults", ...issue.path], { key });
    note = ` (from defaults, in job "${spec.id}")`;
  } else if (spec.fields.model !== undefined) {
    span = reporter.span(["model"], { key: true }, jobPath(spec));
  }
  // A value read from a row is wrong in that row: placed at its cell, in the data file.
  const cell =
    typeof field === "string" && job.row !== undefined ? rowFieldIn(spec.fields[field]) : undefined;
  if (cell !== undefined && job.row !== undefined) {
    reportAtRow(
      reporter,
      spec,
      job.row,
      cell,
      issue.rule,
      `${label}: ${issue.message}`,
      issue.severity,
    );
    return;
  }
  // An unquoted {{name}} is a YAML mapping, not a template: say so where the type is wrong.
  const unquoted = issue.rule === "type" && manifest.source.text.startsWith("{{", span.offset);
  // An upstream's variables are read when its output arrives, into text: not checked as numbers.
  const written = typeof field === "string" ? spec.fields[field] : undefined;
  const upstreamVar = typeof written === "string" && UPSTREAM_VAR.test(written);
  const hint = unquoted
    ? "; a value starting with {{ must be quoted in YAML"
    : upstreamVar
      ? "; {{input.vars.…}} and {{input.row.…}} fill text, so this field needs its own value"
      : "";
  const base = `${label}: ${issue.message}${hint}${note}`;
  if (job.expansions === 1) {
    reporter.atSpan(span, issue.rule, base, issue.severity);
    return;
  }
  // The same problem in several matrix combinations is reported once, with a count.
  const id = `${spec.index}:${span.offset}:${issue.rule}:${base}`;
  const earlier = seen.get(id);
  if (earlier === undefined) {
    const combination = describeCombination(job);
    reporter.atSpan(
      span,
      issue.rule,
      `${base} (in expansion ${job.expansion + 1} of ${job.expansions}: ${combination})`,
      issue.severity,
    );
    const diagnostic = reporter.diagnostics[reporter.diagnostics.length - 1] as Diagnostic;
    seen.set(id, {
      diagnostic,
      base,
      combination,
      first: job.expansion + 1,
      more: 0,
      expansions: job.expansions,
      inMatrix,
    });
    return;
  }
  earlier.more++;
  earlier.diagnostic.message = `${base} (in expansion ${earlier.first} of ${job.expansions}: ${earlier.combination}, and ${earlier.more} more)`;
}

interface SeenIssue {
  diagnostic: Diagnostic;
  base: string;
  combination: string;
  first: number;
  more: number;
  expansions: number;
  /** Placed at a matrix entry: the combination is the point, even when all share it. */
  inMatrix: boolean;
}

export type Seen = Map<string, SeenIssue>;

function describeCombination(job: ExpandedJob): string {
  const record = job.row === undefined ? undefined : job.spec.rows?.record(job.row);
  const row = record === undefined ? [] : [`row ${record + 1}`];
  return [
    ...row,
    ...Object.entries(job.matrixIndex).map(([key, index]) => {
      const value = JSON.stringify(job.spec.matrix?.[key]?.[index]) ?? "null";
      return `${key}=${value.length > 40 ? `${value.slice(0, 37)}...` : value}`;
    }),
  ].join(", ");
}
