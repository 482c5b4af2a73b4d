import { readNamedFile } from "../core/file-gate.js";
import { commandIo } from "../core/io.js";
import { type CheckedManifest, type CheckOptions, checkManifestText } from "../families/index.js";
import type { Diagnostic } from "../manifest/index.js";
import { PlanCounter, upstreamsPicked } from "../plan/index.js";

/**
 * A manifest read and checked against every rule of its model families, for `gwrun validate`
 * and the API: never throws for a problem in the manifest, nor for a file that cannot be read.
 */

export interface ManifestOptions {
  /**
   * The manifest's text, checked as if it were in `file` (its data files are read beside it).
   * @default the text of `file`
   */
  text?: string;
  /**
   * The gateway's API key, given to the manifest as GW_API_KEY (a manifest's own
   * `gateway.api_key` comes first); never printed nor stored.
   * @default env.GW_API_KEY
   */
  apiKey?: string;
  /**
   * The environment the manifest's `${NAME}`s, and GW_API_KEY, are read from.
   * @default the command's environment (the process's outside a command)
   */
  env?: NodeJS.ProcessEnv;
  /**
   * When the run is asked for (a Date or ms): picks a scheduled manifest's tick.
   * @default Date.now()
   */
  at?: Date | number;
}

/** What checking a manifest found. */
export interface Validation {
  file: string;
  /** No errors: a run would submit it. */
  valid: boolean;
  /** Errors and warnings in file order, each at file:line:col with its rule. */
  diagnostics: Diagnostic[];
  /** The manifest text as diagnostics frame it (secrets masked); undefined when unreadable. */
  text: string | undefined;
  /** The run's name; undefined when the manifest is too broken to say. */
  name: string | undefined;
  /** Manifest jobs (each `matrix` expansion one). */
  jobs: number;
  /** Tasks a run records; an upper bound when `tasksUpperBound` (jobs fed by upstream outputs). */
  tasks: number;
  tasksUpperBound: boolean;
}

/** A manifest loaded for running: what validation found, and the checked manifest itself. */
export interface LoadedManifest extends Validation {
  checked: CheckedManifest;
}

/** The environment a manifest reads: `options.env`, with the API key given as GW_API_KEY. */
export function envOf(options: Pick<ManifestOptions, "apiKey" | "env">): NodeJS.ProcessEnv {
  const env = options.env ?? commandIo().env;
  return options.apiKey === undefined ? env : { ...env, GW_API_KEY: options.apiKey };
}

/**
 * Reads and checks the manifest in `file`; `hold` as `CheckOptions.hold` (default every expansion).
 * @example
 * ```ts
 * const loaded = await loadManifest("manifests/campaign.yaml");
 * if (loaded.valid)
 *   for (const { job, endpoint } of loaded.checked.jobs) console.log(job.spec.id, endpoint);
 * ```
 */
export async function loadManifest(
  file: string,
  options: ManifestOptions = {},
  hold: CheckOptions["hold"] = "all",
): Promise<LoadedManifest> {
  const env = envOf(options);
  const at = options.at === undefined ? Date.now() : Number(options.at);
  let text: string;
  try {
    text = options.text ?? (await readNamedFile(file));
  } catch (error) {
    const checked = await checkManifestText("", file, env, at);
    const diagnostic: Diagnostic = {
      severity: "error",
      file,
      line: 1,
      col: 1,
      rule: "file",
      message: `cannot read ${file}: ${readProblem(error)}`,
    };
    return {
      ...summaryOf(file, { ...checked, diagnostics: [diagnostic], valid: false }),
      text: undefined,
    };
  }
  // Tasks are counted as they are checked: a manifest of a million is never held.
  let counter: PlanCounter | undefined;
  const checked = await checkManifestText(text, file, env, at, {
    hold,
    observe: (job, specs) => {
      counter ??= new PlanCounter(upstreamsPicked(specs));
      counter.add(job);
    },
  });
  return summaryOf(file, checked, counter);
}

/**
 * Checks the manifest in `file`: `loadManifest` without the checked manifest.
 * @example
 * ```ts
 * const checked = await validate("manifests/campaign.yaml");
 * for (const diagnostic of checked.diagnostics)
 *   console.error(diagnosticText(diagnostic, checked.text));
 * if (checked.valid) console.log(`${checked.name}: ${checked.jobs} jobs, ${checked.tasks} tasks`);
 * ```
 */
export async function validate(file: string, options: ManifestOptions = {}): Promise<Validation> {
  const { checked: _checked, ...validation } = await loadManifest(file, options, "templates");
  return validation;
}

function summaryOf(file: string, checked: CheckedManifest, counter?: PlanCounter): LoadedManifest {
  const settings = checked.expanded.settings;
  const totals =
    checked.valid && settings !== undefined
      ? (counter ?? new PlanCounter(new Set())).plan(file, settings).totals
      : { tasks: 0, tasksUpperBound: false };
  return {
    file,
    valid: checked.valid,
    diagnostics: checked.diagnostics,
    text: checked.shownText,
    name: settings?.name,
    jobs: checked.expanded.specs.length,
    tasks: totals.tasks,
    tasksUpperBound: totals.tasksUpperBound,
    checked,
  };
}

function readProblem(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === "ENOENT") return "no such file";
  return message.replace(/^.*? (?=is |cannot |holds )/, "it ");
}
