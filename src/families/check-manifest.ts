import {
  checkRequestSecrets,
  concealSecrets,
  type Diagnostic,
  type ExpandedManifest,
  expandManifest,
  loadManifest,
  type ManifestSource,
  parseManifest,
  sortDiagnostics,
} from "../manifest/index.js";
import { checkBudget } from "./check-budget.js";
import { type CheckedJob, checkJobs } from "./check-jobs.js";
import { checkJudges } from "./check-judge.js";
import { checkOutputNames } from "./check-names.js";
import { checkPrices } from "./check-prices.js";
import { checkTwins } from "./check-twins.js";
import { ruleFor } from "./prices.js";
import { familyFields, familyFor } from "./resolve.js";

/** A manifest read, expanded and checked against every family's rules. */
export interface CheckedManifest {
  source: ManifestSource;
  expanded: ExpandedManifest;
  jobs: CheckedJob[];
  /** Errors and warnings, in file order. */
  diagnostics: Diagnostic[];
  valid: boolean;
  /** The manifest text as diagnostics show it: any secret written in it masked. */
  shownText: string;
}

/**
 * Reads, expands and validates a manifest file; never throws for problems in the manifest.
 * `at` (ms, default now) is when the run is asked for: it picks a scheduled manifest's tick.
 */
export async function checkManifestFile(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  at: number = Date.now(),
): Promise<CheckedManifest> {
  return checkManifestSource(await loadManifest(file, env), env, at);
}

/** The same for manifest text held elsewhere (a run's snapshot); `file` places local paths. */
export async function checkManifestText(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  at: number = Date.now(),
): Promise<CheckedManifest> {
  return checkManifestSource(parseManifest(text, file, env), env, at);
}

async function checkManifestSource(
  source: ManifestSource,
  env: NodeJS.ProcessEnv,
  at: number,
): Promise<CheckedManifest> {
  const expanded = expandManifest(source, {
    at,
    fieldsFor: (model, endpoint) => {
      const family = familyFor(model, endpoint);
      return family === undefined ? undefined : familyFields(family);
    },
  });
  const secrets = checkRequestSecrets(expanded, env);
  // An expansion carrying a secret is checked no further: other rules quote what they refuse.
  const checked = await checkJobs(
    secrets.withSecrets.size === 0
      ? expanded
      : { ...expanded, jobs: expanded.jobs.filter((job) => !secrets.withSecrets.has(job)) },
  );
  for (const job of checked.jobs) job.price = ruleFor(expanded.prices.table, job.body);
  const diagnostics = sortDiagnostics([
    ...expanded.diagnostics,
    ...checkPrices(expanded, checked.jobs),
    ...secrets.diagnostics,
    ...checked.diagnostics,
    ...checkBudget(expanded, checked.jobs),
    ...checkOutputNames(expanded, checked.jobs),
    ...checkTwins(expanded, checked.jobs),
    ...checkJudges(expanded),
  ]);
  const valid = expanded.settings !== undefined && !diagnostics.some((d) => d.severity === "error");
  const shownText = concealSecrets(source.text, secrets.secrets);
  return { source, expanded, jobs: checked.jobs, diagnostics, valid, shownText };
}
