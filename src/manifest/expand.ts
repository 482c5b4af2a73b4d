import { didYouMean } from "../core/suggest.js";
import { describeZodIssues, type Issue } from "../core/zod-issues.js";
import type { Diagnostic } from "./diagnostics.js";
import { renderTemplates, templateNames } from "./interpolate.js";
import type { ManifestSource } from "./load.js";
import { Reporter } from "./report.js";
import { jobSchema, type ManifestInput, manifestSettingsSchema, RUNNER_KEYS } from "./schema.js";
import { resolveSettings } from "./settings.js";
import type { ExpandedJob, JobChecks, JobSpec, ManifestSettings } from "./types.js";

/** What expansion needs to know about models, injected by the caller (families come later). */
export interface ExpandOptions {
  /** Request fields the model (or text endpoint) accepts; undefined when not known. */
  fieldsFor(
    model: string | undefined,
    endpoint: string | undefined,
  ): ReadonlySet<string> | undefined;
}

export interface ExpandedManifest {
  source: ManifestSource;
  settings: ManifestSettings | undefined;
  specs: JobSpec[];
  /** Every enabled job's matrix combinations, in manifest order. */
  jobs: ExpandedJob[];
  diagnostics: Diagnostic[];
  reporter: Reporter;
}

/** Values that stand in for an upstream output while validating a `from:` job. */
export const INPUT_PLACEHOLDERS = {
  url: (from: string) => `https://upstream.invalid/${from}/output`,
  file: () => "data:image/png;base64,iVBORw0KGgo=",
  text: (from: string) => `(text produced by ${from})`,
} as const;

const INPUT_NAMES = ["input.url", "input.file", "input.text"];

/**
 * Checks the manifest's own structure (runner keys, settings, ids, `from:` links, templates)
 * and expands every enabled job into its matrix combinations with bodies rendered.
 */
export function expandManifest(source: ManifestSource, options: ExpandOptions): ExpandedManifest {
  const reporter = new Reporter(source);
  const result: ExpandedManifest = {
    source,
    settings: undefined,
    specs: [],
    jobs: [],
    diagnostics: [],
    reporter,
  };
  if (source.value === undefined) {
    result.diagnostics = [...source.diagnostics];
    return result;
  }
  const parsed = manifestSettingsSchema.safeParse(source.value);
  const report = (issues: readonly Issue[], base: (string | number)[]) => {
    for (const issue of issues) {
      const path = [...base, ...issue.path];
      reporter.at(path, issue.rule, `${pathLabel(path)}: ${issue.message}`, {
        key: issue.rule === "unknown-field",
      });
    }
  };
  if (parsed.success) {
    result.settings = resolveSettings(parsed.data as ManifestInput, source.file);
  } else {
    report(describeZodIssues(manifestSettingsSchema, source.value, parsed.error.issues), []);
  }
  const jobsValue = (source.value as { jobs?: unknown }).jobs;
  if (Array.isArray(jobsValue)) {
    jobsValue.forEach((raw, index) => {
      const job = jobSchema.safeParse(raw);
      if (!job.success)
        report(describeZodIssues(jobSchema, raw, job.error.issues), ["jobs", index]);
    });
  }
  const value = source.value as Partial<ManifestInput> & Record<string, unknown>;
  const rawJobs = Array.isArray(value.jobs) ? value.jobs : [];
  result.specs = rawJobs.flatMap((raw, index) => {
    const spec = toSpec(raw, index);
    return spec === undefined ? [] : [spec];
  });
  const vars = isRecord(value.vars) ? value.vars : {};
  const defaults = isRecord(value.defaults) ? value.defaults : {};
  checkIds(result.specs, reporter);
  checkLinks(result.specs, reporter);
  checkTemplates(result.specs, vars, defaults, reporter);
  const context: ExpandContext = {
    vars: new Map(Object.entries(vars)),
    defaults,
    defaultsTemplated: hasTemplate(defaults),
    options,
  };
  const runs = willRun(result.specs);
  for (const spec of result.specs) {
    if (!runs.has(spec)) continue;
    for (const job of expandSpec(spec, context)) result.jobs.push(job);
  }
  result.diagnostics = [...source.diagnostics, ...reporter.diagnostics];
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function pathLabel(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (label, step) =>
      typeof step === "number" ? `${label}[${step}]` : label === "" ? step : `${label}.${step}`,
    "",
  );
}

const RUNNER_KEY_SET: ReadonlySet<string> = new Set(RUNNER_KEYS);

/** The spec of one `jobs:` entry: runner keys read, every other key kept as a request field. */
function toSpec(raw: unknown, index: number): JobSpec | undefined {
  if (!isRecord(raw)) return undefined;
  const matrix = isRecord(raw.matrix)
    ? (Object.fromEntries(
        Object.entries(raw.matrix).filter(([, list]) => Array.isArray(list) && list.length > 0),
      ) as Record<string, unknown[]>)
    : undefined;
  const spec: JobSpec = {
    id: typeof raw.id === "string" ? raw.id : `#${index + 1}`,
    index,
    model: typeof raw.model === "string" ? raw.model : undefined,
    endpoint: typeof raw.endpoint === "string" ? raw.endpoint : undefined,
    matrix,
    repeat:
      typeof raw.repeat === "number" && Number.isInteger(raw.repeat) && raw.repeat > 0
        ? raw.repeat
        : 1,
    from: typeof raw.from === "string" ? raw.from : undefined,
    enabled: raw.enabled !== false,
    passthrough: raw.passthrough === true,
    checks: isRecord(raw.checks) ? (raw.checks as JobChecks) : undefined,
    fields: {},
  };
  for (const key of Object.keys(raw)) {
    if (!RUNNER_KEY_SET.has(key)) spec.fields[key] = raw[key];
  }
  return spec;
}

/** Where a job's entry sits in the document. */
export function jobPath(spec: JobSpec): (string | number)[] {
  return ["jobs", spec.index];
}

function checkIds(specs: readonly JobSpec[], reporter: Reporter): void {
  const first = new Map<string, JobSpec>();
  for (const spec of specs) {
    const earlier = first.get(spec.id);
    if (earlier === undefined) {
      first.set(spec.id, spec);
      continue;
    }
    const line = reporter.source.lineCounter.linePos(
      reporter.span(["id"], {}, jobPath(earlier)).offset,
    ).line;
    reporter.at(
      ["id"],
      "duplicate-id",
      `duplicate job id "${spec.id}" (first defined on line ${line})`,
      {},
      jobPath(spec),
    );
  }
}

/** Enabled jobs whose whole `from:` chain is enabled (a disabled upstream produces nothing). */
function willRun(specs: readonly JobSpec[]): Set<JobSpec> {
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  const runs = new Set<JobSpec>();
  for (const spec of specs) {
    let current: JobSpec | undefined = spec;
    const seen = new Set<JobSpec>();
    while (current?.enabled === true && current.from !== undefined && !seen.has(current)) {
      seen.add(current);
      current = byId.get(current.from);
    }
    if (current?.enabled === true && current.from === undefined) runs.add(spec);
  }
  return runs;
}

/** `from:` must name another job, and the links must not loop. */
function checkLinks(specs: readonly JobSpec[], reporter: Reporter): void {
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  const ids = [...byId.keys()];
  for (const spec of specs) {
    if (spec.from === undefined) continue;
    const upstream = byId.get(spec.from);
    if (upstream === undefined) {
      reporter.at(
        ["from"],
        "unknown-job",
        `from: no job has id "${spec.from}"${didYouMean(spec.from, ids)}`,
        {},
        jobPath(spec),
      );
    } else if (!upstream.enabled && spec.enabled) {
      reporter.at(
        ["from"],
        "disabled-upstream",
        `from: job "${spec.from}" is disabled, so this job will not run`,
        { severity: "warning" },
        jobPath(spec),
      );
    }
  }
  const reported = new Set<string>();
  for (const spec of specs) {
    const chain: string[] = [];
    let current: JobSpec | undefined = spec;
    while (current?.from !== undefined && !chain.includes(current.id)) {
      chain.push(current.id);
      current = byId.get(current.from);
    }
    if (
      current === undefined ||
      !chain.includes(current.id) ||
      current.id !== spec.id ||
      reported.has(spec.id)
    )
      continue;
    const cycle = [...chain, spec.id].join(" → ");
    for (const id of chain) reported.add(id);
    for (const id of chain) {
      const member = byId.get(id) as JobSpec;
      reporter.at(["from"], "cycle", `dependency cycle: ${cycle}`, {}, jobPath(member));
    }
  }
}

/** Every `{{name}}` must name a var, a matrix key, or `input.*` in a job with `from:`. */
function checkTemplates(
  specs: readonly JobSpec[],
  vars: Record<string, unknown>,
  defaults: Record<string, unknown>,
  reporter: Reporter,
): void {
  const matrixKeys = new Set(specs.flatMap((spec) => Object.keys(spec.matrix ?? {})));
  const defaultNames = [...Object.keys(vars), ...matrixKeys, ...INPUT_NAMES];
  walkStrings(defaults, ["defaults"], (text, path) => {
    checkNames(text, path, defaultNames, undefined, reporter);
  });
  for (const spec of specs) {
    const names = [...Object.keys(vars), ...Object.keys(spec.matrix ?? {})];
    if (spec.from !== undefined) names.push(...INPUT_NAMES);
    walkStrings(spec.fields, [], (text, path) => checkNames(text, path, names, spec, reporter));
    walkStrings(spec.matrix ?? {}, ["matrix"], (text, path) =>
      checkNames(text, path, Object.keys(vars), spec, reporter),
    );
  }
}

function checkNames(
  text: string,
  path: (string | number)[],
  allowed: readonly string[],
  spec: JobSpec | undefined,
  reporter: Reporter,
): void {
  for (const { name, index } of templateNames(text)) {
    if (allowed.includes(name)) continue;
    const message = name.startsWith("input.")
      ? INPUT_NAMES.includes(name)
        ? `{{${name}}} is only available in a job with from:`
        : `{{${name}}} is not defined; an upstream output offers ${INPUT_NAMES.map((n) => `{{${n}}}`).join(", ")}`
      : `{{${name}}} is not defined in vars or the job's matrix${didYouMean(name, allowed)}`;
    reporter.at(
      path,
      "undefined-variable",
      message,
      { inner: index },
      spec === undefined ? [] : jobPath(spec),
    );
  }
}

/** Calls `visit` for every string in `value` that holds a template; `path` is a shared stack. */
function walkStrings(
  value: unknown,
  path: (string | number)[],
  visit: (text: string, path: (string | number)[]) => void,
): void {
  if (typeof value === "string") {
    if (value.includes("{{")) visit(value, [...path]);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walkStrings(value[i], path, visit);
      path.pop();
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      path.push(key);
      walkStrings(value[key], path, visit);
      path.pop();
    }
  }
}

const NO_MATRIX: readonly Record<string, number>[] = [Object.freeze({})];

/** The cartesian product of a matrix, as index maps, in the order the lists are written. */
function combinations(
  matrix: Record<string, unknown[]> | undefined,
): readonly Record<string, number>[] {
  if (matrix === undefined || Object.keys(matrix).length === 0) return NO_MATRIX;
  let combos: Record<string, number>[] = [{}];
  for (const [key, list] of Object.entries(matrix)) {
    const next: Record<string, number>[] = [];
    for (const combo of combos)
      for (let i = 0; i < list.length; i++) next.push({ ...combo, [key]: i });
    combos = next;
  }
  return combos;
}

const NO_FIELDS: ReadonlySet<string> = new Set();

interface ExpandContext {
  vars: ReadonlyMap<string, unknown>;
  defaults: Record<string, unknown>;
  defaultsTemplated: boolean;
  options: ExpandOptions;
}

function hasTemplate(value: unknown): boolean {
  if (typeof value === "string") return value.includes("{{");
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (isRecord(value)) return Object.values(value).some(hasTemplate);
  return false;
}

function expandSpec(spec: JobSpec, context: ExpandContext): ExpandedJob[] {
  const { defaults, options } = context;
  const combos = combinations(spec.matrix);
  let vars = context.vars;
  if (spec.from !== undefined) {
    vars = new Map([
      ...context.vars,
      ["input.url", INPUT_PLACEHOLDERS.url(spec.from)],
      ["input.file", INPUT_PLACEHOLDERS.file()],
      ["input.text", INPUT_PLACEHOLDERS.text(spec.from)],
    ]);
  }
  const templated = hasTemplate(spec.fields);
  return combos.map((matrixIndex, expansion) => {
    const localVars = spec.matrix === undefined ? vars : new Map(vars);
    const matrixValues: Record<string, unknown> = {};
    for (const [key, index] of Object.entries(matrixIndex)) {
      const item = renderTemplates(spec.matrix?.[key]?.[index], vars);
      matrixValues[key] = item;
      (localVars as Map<string, unknown>).set(key, item);
    }
    const fields = templated
      ? (renderTemplates(spec.fields, localVars) as Record<string, unknown>)
      : spec.fields;
    const model =
      typeof fields.model === "string" ? fields.model : (matrixValues.model as string | undefined);
    const accepted = spec.passthrough ? undefined : options.fieldsFor(model, spec.endpoint);
    const fromDefaults = new Set<string>();
    for (const key of Object.keys(defaults)) {
      if (accepted?.has(key) === true && !(key in fields) && !(key in matrixValues))
        fromDefaults.add(key);
    }
    const matrixFields = Object.keys(matrixValues).filter(
      (key) => accepted?.has(key) === true || key === "model",
    );
    if (fromDefaults.size === 0 && matrixFields.length === 0) {
      // The common case: the body is the job's own fields, shared rather than copied.
      return {
        spec,
        expansion,
        expansions: combos.length,
        matrixIndex,
        body: fields,
        fromDefaults: NO_FIELDS,
      };
    }
    const body: Record<string, unknown> = {};
    for (const key of fromDefaults) {
      body[key] = context.defaultsTemplated
        ? renderTemplates(defaults[key], localVars)
        : defaults[key];
    }
    Object.assign(body, fields);
    for (const key of matrixFields) body[key] = matrixValues[key];
    return { spec, expansion, expansions: combos.length, matrixIndex, body, fromDefaults };
  });
}
