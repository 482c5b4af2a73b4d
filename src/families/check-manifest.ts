import {
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
import { familyFields, familyFor } from "./resolve.js";

/** A manifest read, expanded and checked against every family's rules. */
export interface CheckedManifest {
  source: ManifestSource;
  expanded: ExpandedManifest;
  jobs: CheckedJob[];
  /** Errors and warnings, in file order. */
  diagnostics: Diagnostic[];
  valid: boolean;
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
  return checkManifestSource(await loadManifest(file, env), at);
}

/** The same for manifest text held elsewhere (a run's snapshot); `file` places local paths. */
export async function checkManifestText(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  at: number = Date.now(),
): Promise<CheckedManifest> {
  return checkManifestSource(parseManifest(text, file, env), at);
}

async function checkManifestSource(source: ManifestSource, at: number): Promise<CheckedManifest> {
  const expanded = expandManifest(source, {
    at,
    fieldsFor: (model, endpoint) => {
      const family = familyFor(model, endpoint);
      return family === undefined ? undefined : familyFields(family);
    },
  });
  const checked = await checkJobs(expanded);
  const diagnostics = sortDiagnostics([
    ...expanded.diagnostics,
    ...checked.diagnostics,
    ...checkBudget(expanded, checked.jobs),
  ]);
  const valid = expanded.settings !== undefined && !diagnostics.some((d) => d.severity === "error");
  return { source, expanded, jobs: checked.jobs, diagnostics, valid };
}
