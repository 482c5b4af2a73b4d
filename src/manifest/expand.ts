import { isRecord } from "../core/values.js";
import { describeZodIssues, type Issue } from "../core/zod-issues.js";
import { checkLabels } from "./check-labels.js";
import { checkTemplates } from "./check-templates.js";
import type { Diagnostic } from "./diagnostics.js";
import { type ExpandContext, type ExpandOptions, expansionsOf } from "./expand-job.js";
import { readIncludes } from "./includes.js";
import { hasTemplate } from "./interpolate.js";
import { checkIds, checkLinks, willRun } from "./job-graph.js";
import { pathLabel } from "./job-path.js";
import { folderNamesOf, momentVars, type RunMoment, runMoment } from "./moment.js";
import { checkNotify } from "./notify.js";
import { type LoadedPrices, readPrices } from "./prices.js";
import { publishTargetsFor } from "./publish.js";
import { Reporter } from "./report.js";
import { readRows } from "./rows.js";
import {
  checksSchema,
  jobSchema,
  type ManifestInput,
  manifestSettingsSchema,
  RUNNER_KEYS,
} from "./schema.js";
import { checkLiteralKey } from "./secrets.js";
import { selectOf } from "./select-schema.js";
import { resolveSettings } from "./settings.js";
import type { ManifestSource } from "./source.js";
import { DEFAULT_MAX_TASKS, withinTaskLimit } from "./task-count.js";
import type { ExpandedJob, JobChecks, JobSpec, ManifestSettings } from "./types.js";

export type { ExpandOptions } from "./expand-job.js";
export { INPUT_PLACEHOLDERS } from "./input-placeholders.js";

export interface ExpandedManifest {
  source: ManifestSource;
  settings: ManifestSettings | undefined;
  /** The run's tick and date (the manifest's schedule, or none when it is unreadable). */
  moment: RunMoment;
  specs: JobSpec[];
  /** Every enabled job's matrix combinations, in manifest order (empty when expanded `lazy`). */
  jobs: ExpandedJob[];
  /**
   * The same combinations made again one at a time, each job's problems (a row lacking a field)
   * told to `reporter`: a manifest of a million tasks is walked, never held.
   */
  expansions(reporter: Reporter): Generator<ExpandedJob>;
  diagnostics: Diagnostic[];
  reporter: Reporter;
  /** The `prices:` table with where it is written (empty without one). */
  prices: LoadedPrices;
}

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
    expansions: function* () {},
    diagnostics: [],
    reporter,
    prices: { table: {}, reporter, base: ["prices"] },
  };
  if (source.value === undefined) {
    result.diagnostics = [...source.diagnostics];
    return result;
  }
  // Top-level `x-` keys are the author's own (YAML anchors live there), as in compose files.
  if (isRecord(source.value))
    for (const key of Object.keys(source.value)) if (key.startsWith("x-")) delete source.value[key];
  readSettings(result, options.at);
  const value = source.value as Partial<ManifestInput> & Record<string, unknown>;
  result.prices = readPrices(value.prices, reporter);
  if (result.settings !== undefined) result.settings.prices = result.prices.table;
  readIncludes(value, reporter);
  const rawJobs = Array.isArray(value.jobs) ? value.jobs : [];
  result.specs = rawJobs.flatMap((raw, index) => {
    const spec = toSpec(raw, index, reporter);
    return spec === undefined ? [] : [spec];
  });
  const vars = isRecord(value.vars) ? value.vars : {};
  const defaults = isRecord(value.defaults) ? value.defaults : {};
  checkIds(result.specs, reporter);
  checkLinks(result.specs, reporter);
  // Judged by the key itself, so a schedule with a mistake in it does not also flag {{tick}}.
  const scheduled = isRecord(value.schedule);
  checkTemplates(result.specs, vars, defaults, reporter, scheduled);
  const base: ExpandContext = {
    // The manifest's own vars win over the run's date and tick.
    vars: new Map([...momentVars(result.moment), ...Object.entries(vars)]),
    tick: result.moment.tickId,
    defaults,
    defaultsTemplated: hasTemplate(defaults),
    nested: Object.values(vars).some(hasTemplate),
    options,
    reporter,
  };
  const runs = willRun(result.specs);
  const limit = result.settings?.limits.maxTasks ?? DEFAULT_MAX_TASKS;
  const expanding = withinTaskLimit(
    result.specs.filter((spec) => runs.has(spec)),
    limit,
    reporter,
  );
  result.expansions = function* (told: Reporter) {
    const context = { ...base, reporter: told };
    for (const spec of expanding) yield* expansionsOf(spec, context);
  };
  if (options.lazy !== true) {
    result.jobs = [...result.expansions(reporter)];
    checkLabels(result.jobs, reporter);
  }
  result.diagnostics = [...source.diagnostics, ...reporter.diagnostics];
  return result;
}

/** The manifest's settings, and the moment they give its run; every shape error reported. */
function readSettings(result: ExpandedManifest, at: number): void {
  const { source, reporter } = result;
  const parsed = manifestSettingsSchema.safeParse(source.value);
  if (parsed.success) {
    const settings = resolveSettings(parsed.data as ManifestInput, source.file);
    result.settings = settings;
    result.moment = runMoment(settings.schedule, at);
    checkOutputDir(settings, source.value, reporter);
    const { output } = settings;
    output.publish = publishTargetsFor(output.publish, folderNamesOf(settings, result.moment));
    checkLiteralKey(source, reporter);
    checkPrivateUrls(settings, reporter);
    checkNotify(source, reporter);
  } else {
    const issues = describeZodIssues(manifestSettingsSchema, source.value, parsed.error.issues);
    reportIssues(reporter, issues, []);
  }
  const jobsValue = (source.value as { jobs?: unknown }).jobs;
  if (!Array.isArray(jobsValue)) return;
  jobsValue.forEach((raw, index) => {
    const job = jobSchema.safeParse(raw);
    if (!job.success)
      reportIssues(reporter, describeZodIssues(jobSchema, raw, job.error.issues), ["jobs", index]);
  });
}

/** Schema issues at their place in the manifest (`base` is where the checked value sits). */
function reportIssues(
  reporter: Reporter,
  issues: readonly Issue[],
  base: (string | number)[],
): void {
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    const where = path.length === 0 ? "manifest" : pathLabel(path);
    reporter.at(path, issue.rule, `${where}: ${issue.message}`, {
      key: issue.rule === "unknown-field",
    });
  }
}

const FOLDER_NAMES = ["name", "date", "tick"];

/** `{tick}` needs a schedule; a schedule wants each tick's files, and objects, kept apart. */
function checkOutputDir(settings: ManifestSettings, raw: unknown, reporter: Reporter): void {
  const { dir } = settings.output;
  const scheduled = settings.schedule !== undefined;
  checkFolderNames(dir, ["output", "dir"], scheduled, reporter);
  const daily = /\{(date|tick)\}/;
  if (scheduled && !daily.test(dir)) {
    reporter.at(
      ["output", "dir"],
      "schedule-output",
      `every tick writes into ${dir}, replacing the files of the tick before: add {date} or {tick} to output.dir`,
      { severity: "warning" },
    );
  }
  const publish = isRecord(raw) && isRecord(raw.output) ? raw.output.publish : undefined;
  const targets = typeof publish === "string" ? [publish] : Array.isArray(publish) ? publish : [];
  targets.forEach((target, index) => {
    if (typeof target !== "string") return;
    const at = typeof publish === "string" ? ["output", "publish"] : ["output", "publish", index];
    checkFolderNames(target, at, scheduled, reporter);
    // Each tick's folder is its own; the same objects for all of them would mix the days.
    if (scheduled && daily.test(dir) && !daily.test(target))
      reporter.at(
        at,
        "schedule-output",
        `every tick publishes into ${target}, over the objects of the tick before, while output.dir keeps each tick's files apart: add {date} or {tick} to the target`,
      );
  });
}

/** Anything in braces but `{name}`, `{date}` and `{tick}` would become a name as written. */
function checkFolderNames(
  text: string,
  at: (string | number)[],
  scheduled: boolean,
  reporter: Reporter,
): void {
  const field = at.slice(0, 2).join(".");
  for (const { 0: whole, 1: name, index } of text.matchAll(/\{([^{}]*)\}/g)) {
    if (FOLDER_NAMES.includes(name as string) || text[index - 1] === "{") continue;
    reporter.at(
      at,
      "undefined-variable",
      `${whole} is not a name ${field} knows: use {name}, {date} or {tick}`,
      { inner: index },
    );
  }
  if (!scheduled && text.includes("{tick}"))
    reporter.at(
      at,
      "undefined-variable",
      "{tick} names a schedule tick: only a manifest with schedule: has one (use {date})",
    );
}

/** Private URLs are allowed on purpose, and said so at the line that allows them. */
function checkPrivateUrls(settings: ManifestSettings, reporter: Reporter): void {
  if (!settings.gateway.privateUrls) return;
  reporter.at(
    ["gateway", "private_urls"],
    "private-urls",
    "gateway.private_urls: image and video URLs on private addresses (localhost, 10.x, 192.168.x, .local…) are sent as written; only a gateway inside that network can fetch them",
    { severity: "warning" },
  );
}

const RUNNER_KEY_SET: ReadonlySet<string> = new Set(RUNNER_KEYS);

function checksOf(raw: unknown): JobChecks | undefined {
  const parsed = checksSchema.safeParse(raw);
  return parsed.success ? (parsed.data as JobChecks) : undefined;
}

/** The spec of one `jobs:` entry: runner keys read, every other key kept as a request field. */
function toSpec(raw: unknown, index: number, reporter: Reporter): JobSpec | undefined {
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
    from:
      typeof raw.from === "string"
        ? raw.from
        : isRecord(raw.from) && typeof raw.from.job === "string"
          ? raw.from.job
          : undefined,
    fromWhere: isRecord(raw.from) && isRecord(raw.from.where) ? raw.from.where : undefined,
    // Filled in from the upstream's `select:` by `checkLinks`.
    fromSelected: isRecord(raw.from) && raw.from.selected === true ? { best: 0, of: 0 } : undefined,
    rows: undefined,
    label: typeof raw.label === "string" ? raw.label : undefined,
    enabled: raw.enabled !== false,
    passthrough: raw.passthrough === true,
    // Only checks of the right shape are read further (the shape's errors are reported).
    checks: checksOf(raw.checks),
    select: selectOf(raw.select),
    fields: {},
  };
  for (const key of Object.keys(raw)) {
    if (!RUNNER_KEY_SET.has(key)) spec.fields[key] = raw[key];
  }
  if (raw.rows !== undefined) spec.rows = readRows(raw.rows, spec, reporter);
  return spec;
}
