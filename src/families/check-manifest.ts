import { commandIo } from "../core/io.js";
import {
  concealInDiagnostics,
  concealSecrets,
  type Diagnostic,
  type ExpandedManifest,
  expandManifest,
  type JobSpec,
  LabelCheck,
  loadManifest,
  type ManifestSource,
  parseManifest,
  Reporter,
  type RowsBody,
  SecretCheck,
  sortDiagnostics,
} from "../manifest/index.js";
import { BudgetCheck } from "./check-budget.js";
import { type CheckedJob, JobChecker } from "./check-jobs.js";
import { checkJudges } from "./check-judge.js";
import { NameCheck } from "./check-names.js";
import { PriceCheck } from "./check-prices.js";
import { checkSelects } from "./check-select.js";
import { TwinCheck } from "./check-twins.js";
import { probeFileRows } from "./file-row-media.js";
import { ruleFor } from "./prices.js";
import { familyFields, familyFor } from "./resolve.js";
import { fetchRowsUrls } from "./url-rows.js";

/** A manifest read, expanded and checked against every family's rules. */
export interface CheckedManifest {
  source: ManifestSource;
  expanded: ExpandedManifest;
  /**
   * The checked expansions held: every one (`hold: "all"`), or (`hold: "templates"`) those of
   * `from:` jobs and the first of every other job; `checkedJobs` walks them all again.
   */
  jobs: CheckedJob[];
  /** What `jobs` holds: every checked expansion, or what a run keeps of them. */
  held: "all" | "templates";
  /** Errors and warnings, in file order. */
  diagnostics: Diagnostic[];
  valid: boolean;
  /** The manifest text as diagnostics show it: any secret written in it masked. */
  shownText: string;
}

/** How much of a checked manifest is held, and who hears of each checked expansion. */
export interface CheckOptions {
  /**
   * "all" (default) holds every checked expansion in `jobs`; "templates" holds only what a
   * run keeps (see `CheckedManifest.jobs`), so a million tasks are checked in bounded memory.
   */
  hold?: "all" | "templates";
  /** Told each checked expansion as it passes, with every job (a plan counting its tasks). */
  observe?(checked: CheckedJob, specs: readonly JobSpec[]): void;
  /**
   * The bodies of `rows:` URLs the run being continued recorded: read instead of fetched, so
   * it goes on with the rows it began with. Default none: every URL is fetched.
   */
  rows?: readonly RowsBody[];
}

/**
 * Reads, expands and validates a manifest file; never throws for problems in the manifest.
 * `at` (ms, default now) is when the run is asked for: it picks a scheduled manifest's tick.
 */
export async function checkManifestFile(
  file: string,
  env: NodeJS.ProcessEnv = commandIo().env,
  at: number = Date.now(),
  options: CheckOptions = {},
): Promise<CheckedManifest> {
  return checkManifestSource(await loadManifest(file, env), env, at, options);
}

/** The same for manifest text held elsewhere (a run's snapshot); `file` places local paths. */
export async function checkManifestText(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = commandIo().env,
  at: number = Date.now(),
  options: CheckOptions = {},
): Promise<CheckedManifest> {
  return checkManifestSource(parseManifest(text, file, env), env, at, options);
}

/**
 * Every expansion is checked as it is made and let go: the rules across expansions (twins,
 * labels, names, prices, the budget) keep what they need of each, not the expansion.
 */
async function checkManifestSource(
  source: ManifestSource,
  env: NodeJS.ProcessEnv,
  at: number,
  options: CheckOptions,
): Promise<CheckedManifest> {
  const holdAll = options.hold !== "templates";
  await probeFileRows(source);
  await fetchRowsUrls(source, env, options.rows);
  const expanded = expandManifest(source, { at, fieldsFor, lazy: true });
  // Each rule tells its problems apart, so they are listed in the order they always were.
  const told = new Reporter(source);
  const labels = new LabelCheck();
  const secrets = new SecretCheck(expanded, env);
  const checker = new JobChecker(expanded, new Reporter(source));
  const prices = new PriceCheck(expanded, new Reporter(source));
  const budget = new BudgetCheck(expanded);
  const names = new NameCheck(expanded);
  const twins = new TwinCheck(expanded);
  const jobs: CheckedJob[] = [];
  const kept = new Set<string>();
  for (const job of expanded.expansions(told)) {
    if (holdAll) expanded.jobs.push(job);
    labels.add(job);
    // An expansion carrying a secret is checked no further: other rules quote what they refuse.
    if (secrets.carries(job)) continue;
    const checked = await checker.check(job);
    if (checked === undefined) continue;
    checked.price = ruleFor(expanded.prices.table, checked.body);
    prices.add(checked);
    budget.add(checked);
    names.add(checked);
    twins.add(checked);
    options.observe?.(checked, expanded.specs);
    const { spec } = job;
    if (holdAll || spec.from !== undefined || !kept.has(spec.id)) jobs.push(checked);
    kept.add(spec.id);
  }
  labels.report(told);
  // What expanding found, as an expansion held whole tells it.
  expanded.diagnostics.push(...told.diagnostics);
  // Nothing a diagnostic shows (a message, a frame of a data file) holds a credential.
  const diagnostics = concealInDiagnostics(
    sortDiagnostics([
      ...expanded.diagnostics,
      ...prices.finish(),
      ...secrets.diagnostics,
      ...checker.finish(),
      ...budget.finish(),
      ...names.finish(),
      ...twins.finish(),
      ...checkJudges(expanded),
      ...checkSelects(expanded),
    ]),
    secrets.registry,
  );
  const valid = expanded.settings !== undefined && !diagnostics.some((d) => d.severity === "error");
  const shownText = concealSecrets(source.text, secrets.registry);
  const held = holdAll ? "all" : "templates";
  return { source, expanded, jobs, held, diagnostics, valid, shownText };
}

/** Request fields a model accepts, for expansion (families come after the manifest). */
function fieldsFor(model: string | undefined, endpoint: string | undefined) {
  const family = familyFor(model, endpoint);
  return family === undefined ? undefined : familyFields(family);
}

/**
 * Every checked expansion of a valid manifest, made and checked again one at a time, as the
 * first check found them (of the jobs `only` names, when given): for a run to record its tasks
 * without holding them. Problems were told the first time and are not told again.
 */
export async function* checkedJobs(
  checked: CheckedManifest,
  only?: ReadonlySet<string>,
): AsyncGenerator<CheckedJob> {
  if (checked.held === "all") {
    for (const job of checked.jobs) if (only?.has(job.job.spec.id) !== false) yield job;
    return;
  }
  const { expanded, source } = checked;
  const checker = new JobChecker(expanded, new Reporter(source));
  for (const job of expanded.expansions(new Reporter(source))) {
    if (only !== undefined && !only.has(job.spec.id)) continue;
    const again = await checker.check(job);
    if (again === undefined) continue;
    again.price = ruleFor(expanded.prices.table, again.body);
    yield again;
  }
}
