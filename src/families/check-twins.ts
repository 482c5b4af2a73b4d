import { canonicalJson } from "../core/hash.js";
import { isRecord } from "../core/values.js";
import {
  type Diagnostic,
  diagnosticAt,
  type ExpandedManifest,
  jobPath,
  templateNames,
} from "../manifest/index.js";
import type { CheckedJob } from "./check-jobs.js";

/**
 * Expansions of a job that send the same request — a matrix variable no request field uses, a
 * value listed twice — stay tasks of their own, each paid for (as the plan counts them), each
 * with its own files and variables. That is rarely meant, so validation warns, at the matrix.
 */

/** Groups shown in a warning before "and N more". */
const SHOWN_GROUPS = 3;

/** A warning at the matrix of each job whose expansions send the same request. */
export function checkTwins(manifest: ExpandedManifest, jobs: readonly CheckedJob[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // A job's expansions come one after another.
  for (let start = 0, end = 1; start < jobs.length; start = end, end = start + 1) {
    const spec = jobs[start]?.job.spec;
    while (jobs[end]?.job.spec === spec) end++;
    if (end - start < 2) continue;
    const expansions = jobs.slice(start, end);
    if (!mayRepeat(expansions)) continue;
    const groups = twinGroups(expansions);
    if (groups.length > 0) diagnostics.push(warningOf(manifest, groups));
  }
  return diagnostics;
}

/**
 * Whether a job's expansions may send one request: unless each matrix variable shapes the
 * request (a `{{name}}` in a field, or a field of its own) with values that all differ.
 * Judged from the job's text once, so most jobs are spared comparing every request.
 */
function mayRepeat(expansions: readonly CheckedJob[]): boolean {
  const { spec } = (expansions[0] as CheckedJob).job;
  const templated = namesIn(spec.fields, new Set());
  for (const [name, values] of Object.entries(spec.matrix ?? {})) {
    const field = expansions.every(({ job, body }) => body[name] === job.vars[name]);
    if (!field && !templated.has(name)) return true;
    // As a template shows a value in text, or as it is sent whole: equal either way counts.
    const shown = values.map((value) => (typeof value === "string" ? value : canonicalJson(value)));
    if (shown.some((text) => text.includes("{{")) || new Set(shown).size < shown.length)
      return true;
  }
  return false;
}

/** The `{{name}}` references in a job's fields. */
function namesIn(value: unknown, names: Set<string>): Set<string> {
  if (typeof value === "string") for (const { name } of templateNames(value)) names.add(name);
  else if (Array.isArray(value)) for (const item of value) namesIn(item, names);
  else if (isRecord(value)) for (const item of Object.values(value)) namesIn(item, names);
  return names;
}

/** Expansions sending one request, in groups of two or more, in manifest order. */
function twinGroups(expansions: readonly CheckedJob[]): CheckedJob[][] {
  const requests = new Map<string, CheckedJob[]>();
  // Expansions without templates share one body, one after another: its text is made once.
  let body: object | undefined;
  let text = "";
  for (const checked of expansions) {
    if (checked.body !== body) {
      body = checked.body;
      text = canonicalJson(body);
    }
    const request = `${checked.endpoint} ${text}`;
    const group = requests.get(request);
    if (group === undefined) requests.set(request, [checked]);
    else group.push(checked);
  }
  return [...requests.values()].filter((group) => group.length > 1);
}

function warningOf(manifest: ExpandedManifest, groups: readonly CheckedJob[][]): Diagnostic {
  const { reporter, source } = manifest;
  const first = groups[0]?.[0] as CheckedJob;
  const { spec } = first.job;
  // The variables whose values differ inside a group, yet the request does not: left out of
  // every field, or used where their values read alike (1 and "1" in a prompt).
  const differing = Object.keys(first.job.vars).filter((name) =>
    groups.some((group) => new Set(group.map(({ job }) => canonicalJson(job.vars[name]))).size > 1),
  );
  const templated = namesIn(spec.fields, new Set());
  const unused = differing.filter((name) => !templated.has(name) && !(name in first.body));
  const alike = differing.filter((name) => !unused.includes(name));
  const shown = groups
    .slice(0, SHOWN_GROUPS)
    .map((group) => listed(group.map(({ job }) => String(job.expansion + 1))))
    .join(", ");
  const more = groups.length > SHOWN_GROUPS ? `, and ${groups.length - SHOWN_GROUPS} more` : "";
  const why = [
    ...(unused.length > 0 ? [`the request does not change with ${listed(unused)}`] : []),
    ...(alike.length > 0 ? [`values of ${listed(alike)} read alike in the request`] : []),
  ];
  const message = `expansions ${shown}${more} send the same request (${why.length > 0 ? why.join("; ") : "the matrix lists the same values more than once"}): each stays a task of its own, with its own files, and is paid for`;
  const hint =
    unused.length > 0
      ? `use ${listed(unused.map((name) => `{{${name}}}`))} in a request field, or take ${unused.length > 1 ? "them" : "it"} out of the matrix`
      : alike.length > 0
        ? `give ${listed(alike)} values that read differently`
        : "list each value once";
  const named = [...unused, ...alike][0];
  const span = reporter.span(
    named === undefined ? ["matrix"] : ["matrix", named],
    { key: true },
    jobPath(spec),
  );
  return diagnosticAt(
    source.file,
    source.lineCounter,
    span,
    "same-request",
    message,
    "warning",
    hint,
  );
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length < 2
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
