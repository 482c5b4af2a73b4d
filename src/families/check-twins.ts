import { canonicalJson, sha256 } from "../core/hash.js";
import { isRecord } from "../core/values.js";
import {
  type Diagnostic,
  diagnosticAt,
  type ExpandedManifest,
  type JobSpec,
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
  const check = new TwinCheck(manifest);
  for (const checked of jobs) check.add(checked);
  return check.finish();
}

/** An expansion as a twin warning names it. */
interface Member {
  expansion: number;
  vars: Record<string, unknown>;
}

/** Expansions sending one request; `body` is the first one's. */
interface TwinGroup {
  body: Record<string, unknown>;
  members: Member[];
}

/**
 * `checkTwins` fed one checked expansion at a time (a job's expansions come one after
 * another). It keeps, for the job at hand only, a hash of each request — and only when the
 * job's text leaves room for two alike.
 */
export class TwinCheck {
  readonly #diagnostics: Diagnostic[] = [];
  #spec: JobSpec | undefined;
  #count = 0;
  /** Whether the job's text alone lets expansions repeat (a value twice, a template in one). */
  #textRepeats = false;
  /** Matrix variables no field's template uses: each must be a field of its own, every time. */
  #untemplated: string[] = [];
  #asField = new Set<string>();
  #requests = new Map<string, TwinGroup>();
  // Expansions without templates share one body, one after another: its text is made once.
  #body: object | undefined;
  #text = "";

  constructor(private readonly manifest: ExpandedManifest) {}

  add(checked: CheckedJob): void {
    const { job, body, endpoint } = checked;
    if (job.spec !== this.#spec) this.#begin(job.spec);
    this.#count++;
    for (const name of this.#untemplated)
      if (body[name] !== job.vars[name]) this.#asField.delete(name);
    if (!this.#textRepeats && this.#untemplated.length === 0) return;
    if (body !== this.#body) {
      this.#body = body;
      this.#text = sha256(`${endpoint} ${canonicalJson(body)}`);
    }
    const member = { expansion: job.expansion, vars: job.vars };
    const group = this.#requests.get(this.#text);
    if (group === undefined) this.#requests.set(this.#text, { body, members: [member] });
    else group.members.push(member);
  }

  finish(): Diagnostic[] {
    this.#end();
    return this.#diagnostics;
  }

  #begin(spec: JobSpec): void {
    this.#end();
    this.#spec = spec;
    this.#count = 0;
    const templated = namesIn(spec.fields, new Set());
    const matrix = Object.entries(spec.matrix ?? {});
    this.#untemplated = matrix.map(([name]) => name).filter((name) => !templated.has(name));
    this.#asField = new Set(this.#untemplated);
    // As a template shows a value in text, or as it is sent whole: equal either way counts.
    this.#textRepeats = matrix.some(([, values]) => {
      const shown = values.map((value) =>
        typeof value === "string" ? value : canonicalJson(value),
      );
      return shown.some((text) => text.includes("{{")) || new Set(shown).size < shown.length;
    });
  }

  /**
   * The job's expansions may send one request unless each matrix variable shapes the request
   * (a `{{name}}` in a field, or a field of its own) with values that all differ.
   */
  #end(): void {
    const spec = this.#spec;
    const requests = this.#requests;
    this.#spec = undefined;
    this.#requests = new Map();
    this.#body = undefined;
    if (spec === undefined || this.#count < 2) return;
    const mayRepeat = this.#textRepeats || this.#asField.size < this.#untemplated.length;
    if (!mayRepeat) return;
    const groups = [...requests.values()].filter((group) => group.members.length > 1);
    if (groups.length > 0) this.#diagnostics.push(warningOf(this.manifest, spec, groups));
  }
}

/** The `{{name}}` references in a job's fields. */
function namesIn(value: unknown, names: Set<string>): Set<string> {
  if (typeof value === "string") for (const { name } of templateNames(value)) names.add(name);
  else if (Array.isArray(value)) for (const item of value) namesIn(item, names);
  else if (isRecord(value)) for (const item of Object.values(value)) namesIn(item, names);
  return names;
}

function warningOf(
  manifest: ExpandedManifest,
  spec: JobSpec,
  groups: readonly TwinGroup[],
): Diagnostic {
  const { reporter, source } = manifest;
  const first = groups[0] as TwinGroup;
  const firstVars = (first.members[0] as Member).vars;
  // The variables whose values differ inside a group, yet the request does not: left out of
  // every field, or used where their values read alike (1 and "1" in a prompt).
  const differing = Object.keys(firstVars).filter((name) =>
    groups.some(
      (group) => new Set(group.members.map(({ vars }) => canonicalJson(vars[name]))).size > 1,
    ),
  );
  const templated = namesIn(spec.fields, new Set());
  const unused = differing.filter((name) => !templated.has(name) && !(name in first.body));
  const alike = differing.filter((name) => !unused.includes(name));
  const shown = groups
    .slice(0, SHOWN_GROUPS)
    .map((group) => listed(group.members.map(({ expansion }) => String(expansion + 1))))
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
