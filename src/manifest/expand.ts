import { didYouMean } from "../core/suggest.js";
import { describeZodIssues } from "../core/zod-issues.js";
import type { Diagnostic } from "./diagnostics.js";
import { renderTemplates, templateNames } from "./interpolate.js";
import type { ManifestSource } from "./load.js";
import { Reporter } from "./report.js";
import { type ManifestInput, manifestSchema, RUNNER_KEYS } from "./schema.js";
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
  const parsed = manifestSchema.safeParse(source.value);
  if (!parsed.success) {
    for (const issue of describeZodIssues(manifestSchema, source.value, parsed.error.issues)) {
      reporter.at(issue.path, issue.rule, `${pathLabel(issue.path)}: ${issue.message}`, {
        key: issue.rule === "unknown-field",
      });
    }
  } else {
    result.settings = resolveSettings(parsed.data, source.file);
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
  for (const spec of result.specs) {
    if (spec.enabled) result.jobs.push(...expandSpec(spec, vars, defaults, options));
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

function toSpec(raw: unknown, index: number): JobSpec | undefined {
  if (!isRecord(raw)) return undefined;
  const fields: Record<string, unknown> = {};
  for (const [key, fieldValue] of Object.entries(raw)) {
    if (!(RUNNER_KEYS as readonly string[]).includes(key)) fields[key] = fieldValue;
  }
  const matrix = isRecord(raw.matrix)
    ? (Object.fromEntries(
        Object.entries(raw.matrix).filter(([, list]) => Array.isArray(list) && list.length > 0),
      ) as Record<string, unknown[]>)
    : undefined;
  return {
    id: typeof raw.id === "string" ? raw.id : `#${index + 1}`,
    index,
    path: ["jobs", index],
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
    fields,
  };
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
      reporter.span(["id"], {}, earlier.path).offset,
    ).line;
    reporter.at(
      ["id"],
      "duplicate-id",
      `duplicate job id "${spec.id}" (first defined on line ${line})`,
      {},
      spec.path,
    );
  }
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
        spec.path,
      );
    } else if (!upstream.enabled && spec.enabled) {
      reporter.at(
        ["from"],
        "disabled-upstream",
        `from: job "${spec.from}" is disabled, so this job will not run`,
        { severity: "warning" },
        spec.path,
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
      reporter.at(["from"], "cycle", `dependency cycle: ${cycle}`, {}, member.path);
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
    reporter.at(path, "undefined-variable", message, { inner: index }, spec?.path);
  }
}

function walkStrings(
  value: unknown,
  path: (string | number)[],
  visit: (text: string, path: (string | number)[]) => void,
): void {
  if (typeof value === "string") {
    visit(value, path);
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) walkStrings(item, [...path, index], visit);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) walkStrings(item, [...path, key], visit);
  }
}

/** The cartesian product of a matrix, as index maps, in the order the lists are written. */
function combinations(matrix: Record<string, unknown[]> | undefined): Record<string, number>[] {
  let combos: Record<string, number>[] = [{}];
  for (const [key, list] of Object.entries(matrix ?? {})) {
    const next: Record<string, number>[] = [];
    for (const combo of combos)
      for (let i = 0; i < list.length; i++) next.push({ ...combo, [key]: i });
    combos = next;
  }
  return combos;
}

function expandSpec(
  spec: JobSpec,
  vars: Record<string, unknown>,
  defaults: Record<string, unknown>,
  options: ExpandOptions,
): ExpandedJob[] {
  const combos = combinations(spec.matrix);
  const baseVars = new Map<string, unknown>(Object.entries(vars));
  if (spec.from !== undefined) {
    baseVars.set("input.url", INPUT_PLACEHOLDERS.url(spec.from));
    baseVars.set("input.file", INPUT_PLACEHOLDERS.file());
    baseVars.set("input.text", INPUT_PLACEHOLDERS.text(spec.from));
  }
  const hasTemplates =
    JSON.stringify(spec.fields).includes("{{") || JSON.stringify(defaults).includes("{{");
  return combos.map((matrixIndex, expansion) => {
    const localVars = combos.length > 1 || spec.matrix !== undefined ? new Map(baseVars) : baseVars;
    const matrixValues: Record<string, unknown> = {};
    for (const [key, index] of Object.entries(matrixIndex)) {
      const item = renderTemplates(spec.matrix?.[key]?.[index], baseVars);
      matrixValues[key] = item;
      localVars.set(key, item);
    }
    const fields = hasTemplates
      ? (renderTemplates(spec.fields, localVars) as Record<string, unknown>)
      : spec.fields;
    const model =
      typeof fields.model === "string" ? fields.model : (matrixValues.model as string | undefined);
    const accepted = spec.passthrough ? undefined : options.fieldsFor(model, spec.endpoint);
    const body: Record<string, unknown> = {};
    const fromDefaults = new Set<string>();
    if (accepted !== undefined) {
      for (const [key, item] of Object.entries(defaults)) {
        if (accepted.has(key) && !(key in fields) && !(key in matrixValues)) {
          body[key] = hasTemplates ? renderTemplates(item, localVars) : item;
          fromDefaults.add(key);
        }
      }
    }
    Object.assign(body, fields);
    for (const [key, item] of Object.entries(matrixValues)) {
      if (accepted?.has(key) === true || key === "model") body[key] = item;
    }
    return { spec, expansion, expansions: combos.length, matrixIndex, body, fromDefaults };
  });
}
