import { isRecord } from "../core/values.js";
import { describeZodIssues, type Issue } from "../core/zod-issues.js";
import { checkTemplates } from "./check-templates.js";
import type { Diagnostic } from "./diagnostics.js";
import { hasTemplate, nestedVars, renderTemplates, type VarLookup } from "./interpolate.js";
import { checkIds, checkLinks, willRun } from "./job-graph.js";
import type { ManifestSource } from "./load.js";
import { momentVars, type RunMoment, runMoment } from "./moment.js";
import { type LoadedPrices, readPrices } from "./prices.js";
import { Reporter } from "./report.js";
import { jobSchema, type ManifestInput, manifestSettingsSchema, RUNNER_KEYS } from "./schema.js";
import { checkLiteralKey } from "./secrets.js";
import { resolveSettings } from "./settings.js";
import { DEFAULT_MAX_TASKS, withinTaskLimit } from "./task-count.js";
import type { ExpandedJob, JobChecks, JobSpec, ManifestSettings } from "./types.js";

/** What expansion needs to know about models, injected by the caller (families come later). */
export interface ExpandOptions {
  /** Request fields the model (or text endpoint) accepts; undefined when not known. */
  fieldsFor(
    model: string | undefined,
    endpoint: string | undefined,
  ): ReadonlySet<string> | undefined;
  /** When the run is asked for, ms: picks a scheduled manifest's tick and `{{date}}`. */
  at: number;
}

export interface ExpandedManifest {
  source: ManifestSource;
  settings: ManifestSettings | undefined;
  /** The run's tick and date (the manifest's schedule, or none when it is unreadable). */
  moment: RunMoment;
  specs: JobSpec[];
  /** Every enabled job's matrix combinations, in manifest order. */
  jobs: ExpandedJob[];
  diagnostics: Diagnostic[];
  reporter: Reporter;
  /** The `prices:` table with where it is written (empty without one). */
  prices: LoadedPrices;
}

/** Values that stand in for an upstream output while validating a `from:` job. */
export const INPUT_PLACEHOLDERS = {
  url: (from: string) => `https://upstream.invalid/${from}/output`,
  file: () => "data:image/png;base64,iVBORw0KGgo=",
  text: (from: string) => `(text produced by ${from})`,
} as const;

/**
 * Checks the manifest's own structure (runner keys, settings, ids, `from:` links, templates)
 * and expands every enabled job into its matrix combinations with bodies rendered.
 */
export function expandManifest(source: ManifestSource, options: ExpandOptions): ExpandedManifest {
  const reporter = new Reporter(source);
  const result: ExpandedManifest = {
    source,
    settings: undefined,
    moment: runMoment(undefined, options.at),
    specs: [],
    jobs: [],
    diagnostics: [],
    reporter,
    prices: { table: {}, reporter, base: ["prices"] },
  };
  if (source.value === undefined) {
    result.diagnostics = [...source.diagnostics];
    return result;
  }
  const parsed = manifestSettingsSchema.safeParse(source.value);
  const report = (issues: readonly Issue[], base: (string | number)[]) => {
    for (const issue of issues) {
      const path = [...base, ...issue.path];
      reporter.at(
        path,
        issue.rule,
        `${path.length === 0 ? "manifest" : pathLabel(path)}: ${issue.message}`,
        {
          key: issue.rule === "unknown-field",
        },
      );
    }
  };
  if (parsed.success) {
    result.settings = resolveSettings(parsed.data as ManifestInput, source.file);
    result.moment = runMoment(result.settings.schedule, options.at);
    checkOutputDir(result.settings, reporter);
    checkLiteralKey(source, reporter);
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
  result.prices = readPrices(value.prices, reporter);
  if (result.settings !== undefined) result.settings.prices = result.prices.table;
  const rawJobs = Array.isArray(value.jobs) ? value.jobs : [];
  result.specs = rawJobs.flatMap((raw, index) => {
    const spec = toSpec(raw, index);
    return spec === undefined ? [] : [spec];
  });
  const vars = isRecord(value.vars) ? value.vars : {};
  const defaults = isRecord(value.defaults) ? value.defaults : {};
  checkIds(result.specs, reporter);
  checkLinks(result.specs, reporter);
  // Judged by the key itself, so a schedule with a mistake in it does not also flag {{tick}}.
  const scheduled = isRecord(value.schedule);
  checkTemplates(result.specs, vars, defaults, reporter, scheduled);
  const context: ExpandContext = {
    // The manifest's own vars win over the run's date and tick.
    vars: new Map([...momentVars(result.moment), ...Object.entries(vars)]),
    tick: result.moment.tickId,
    defaults,
    defaultsTemplated: hasTemplate(defaults),
    nested: Object.values(vars).some(hasTemplate),
    options,
  };
  const runs = willRun(result.specs);
  const limit = result.settings?.limits.maxTasks ?? DEFAULT_MAX_TASKS;
  for (const spec of withinTaskLimit(
    result.specs.filter((spec) => runs.has(spec)),
    limit,
    reporter,
  )) {
    for (const job of expandSpec(spec, context)) result.jobs.push(job);
  }
  result.diagnostics = [...source.diagnostics, ...reporter.diagnostics];
  return result;
}

const OUTPUT_DIR_NAMES = ["name", "date", "tick"];

/** `{tick}` needs a schedule; a schedule wants each tick's files kept apart. */
function checkOutputDir(settings: ManifestSettings, reporter: Reporter): void {
  const { dir } = settings.output;
  // Anything else in braces would become a folder literally named so.
  for (const { 0: whole, 1: name, index } of dir.matchAll(/\{([^{}]*)\}/g)) {
    if (OUTPUT_DIR_NAMES.includes(name as string) || dir[index - 1] === "{") continue;
    reporter.at(
      ["output", "dir"],
      "undefined-variable",
      `${whole} is not a name output.dir knows: use {name}, {date} or {tick}`,
      { inner: index },
    );
  }
  if (settings.schedule === undefined) {
    if (dir.includes("{tick}")) {
      reporter.at(
        ["output", "dir"],
        "undefined-variable",
        "{tick} names a schedule tick: only a manifest with schedule: has one (use {date})",
      );
    }
  } else if (!dir.includes("{tick}") && !dir.includes("{date}")) {
    reporter.at(
      ["output", "dir"],
      "schedule-output",
      `every tick writes into ${dir}, replacing the files of the tick before: add {date} or {tick} to output.dir`,
      { severity: "warning" },
    );
  }
}

/** A path into the manifest as its text names it: `jobs[2].messages[0].content`. */
export function pathLabel(path: readonly (string | number)[]): string {
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
  tick: string | undefined;
  defaults: Record<string, unknown>;
  defaultsTemplated: boolean;
  /** Whether some var's value names other vars: then vars are read through `nestedVars`. */
  nested: boolean;
  options: ExpandOptions;
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
  const lookupOf = (map: ReadonlyMap<string, unknown>): VarLookup =>
    context.nested ? nestedVars(map) : map;
  const specVars = lookupOf(vars);
  return combos.map((matrixIndex, expansion) => {
    const localVars = spec.matrix === undefined ? vars : new Map(vars);
    const matrixValues: Record<string, unknown> = {};
    for (const [key, index] of Object.entries(matrixIndex)) {
      const item = renderTemplates(spec.matrix?.[key]?.[index], specVars);
      matrixValues[key] = item;
      (localVars as Map<string, unknown>).set(key, item);
    }
    // A matrix value wins over a var of its name, also inside the values of other vars.
    const lookup = localVars === vars ? specVars : lookupOf(localVars);
    const fields = templated
      ? (renderTemplates(spec.fields, lookup) as Record<string, unknown>)
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
        vars: matrixValues,
        body: fields,
        fromDefaults: NO_FIELDS,
        tick: context.tick,
      };
    }
    const body: Record<string, unknown> = {};
    for (const key of fromDefaults) {
      body[key] = context.defaultsTemplated
        ? renderTemplates(defaults[key], lookup)
        : defaults[key];
    }
    Object.assign(body, fields);
    for (const key of matrixFields) body[key] = matrixValues[key];
    return {
      spec,
      expansion,
      expansions: combos.length,
      matrixIndex,
      vars: matrixValues,
      body,
      fromDefaults,
      tick: context.tick,
    };
  });
}
