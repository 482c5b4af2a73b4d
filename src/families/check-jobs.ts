import { suggest } from "../core/suggest.js";
import {
  type Diagnostic,
  type ExpandedJob,
  type ExpandedManifest,
  jobPath,
  type PriceRule,
  type Reporter,
  RUNNER_KEYS,
} from "../manifest/index.js";
import { type DataUriCache, dataUriImageIssues } from "./data-uri-images.js";
import { reportIssue, type Seen } from "./job-issues.js";
import {
  hasLocalImages,
  type ImageFileCache,
  inlineLocalImages,
  type LocalImageProblem,
} from "./local-images.js";
import { PUBLIC_URL_RULE } from "./public-urls.js";
import {
  ENDPOINT_PATHS,
  familyFields,
  familyFor,
  suggestModel,
  TEXT_FAMILY_IDS,
  wrongEndpoint,
} from "./resolve.js";
import { type CellRules, validateWithCells } from "./row-cells.js";
import type { Family, RequestBody } from "./types.js";
import type { RequestIssue } from "./validate.js";

/** A job that passed its family's rules, ready to be keyed and planned. */
export interface CheckedJob {
  job: ExpandedJob;
  /** Undefined only for a passthrough job whose model gwrun does not know. */
  family: Family | undefined;
  /** The request path, e.g. "/v1/images/generations". */
  endpoint: string;
  /** The body to send: local image files inlined as Data URIs. */
  body: RequestBody;
  /** The manifest's price for its model (`prices:`); undefined: the contract's, if any. */
  price?: PriceRule;
}

/**
 * Validates every expanded job against its family: model known, request fields and rules,
 * local image files, required headers. Problems become diagnostics at the manifest text that
 * caused them, naming the matrix combination or the `defaults:` entry involved.
 */
export async function checkJobs(
  manifest: ExpandedManifest,
): Promise<{ jobs: CheckedJob[]; diagnostics: Diagnostic[] }> {
  const checker = new JobChecker(manifest, manifest.reporter);
  const jobs: CheckedJob[] = [];
  for (const job of manifest.jobs) {
    const checked = await checker.check(job);
    if (checked !== undefined) jobs.push(checked);
  }
  return { jobs, diagnostics: checker.finish() };
}

/**
 * `checkJobs` one expansion at a time: what it keeps between them is what the rules share (files
 * read, problems counted across combinations), not the expansions. Problems go to `reporter`.
 */
export class JobChecker {
  readonly #manifest: ExpandedManifest;
  readonly #start: number;
  readonly #cache: ImageFileCache = new Map();
  readonly #dataUris: DataUriCache = new Map();
  readonly #warnedPassthrough = new Set<string>();
  readonly #seen: Seen = new Map();
  readonly #cells: CellRules = new Map();

  constructor(manifest: ExpandedManifest, reporter: Reporter) {
    this.#manifest = { ...manifest, reporter };
    this.#start = reporter.diagnostics.length;
  }

  /** The expansion checked, or undefined when it has an error (reported). */
  async check(job: ExpandedJob): Promise<CheckedJob | undefined> {
    const manifest = this.#manifest;
    const { reporter } = manifest;
    const { spec } = job;
    const seen = this.#seen;
    // A wrong endpoint is the schema's error, with its did-you-mean: the family and model
    // found without it would only mislead.
    if (spec.endpoint !== undefined && ENDPOINT_PATHS[spec.endpoint] === undefined) return;
    const model = typeof job.body.model === "string" ? job.body.model : undefined;
    const family = familyFor(model, spec.endpoint);
    if (spec.passthrough) return checkPassthrough(manifest, job, family, this.#warnedPassthrough);
    if (family === undefined) {
      reportUnknownModel(manifest, job, model);
      return;
    }
    if (
      spec.endpoint !== undefined &&
      TEXT_FAMILY_IDS[spec.endpoint] === undefined &&
      ENDPOINT_PATHS[spec.endpoint] !== family.endpoint
    ) {
      const word = Object.keys(ENDPOINT_PATHS).find(
        (key) => ENDPOINT_PATHS[key] === family.endpoint,
      );
      reporter.at(
        ["endpoint"],
        "endpoint",
        wrongEndpoint(
          model as string,
          family,
          ENDPOINT_PATHS[spec.endpoint] as string,
          `with endpoint: ${word} or no endpoint`,
        ),
        {},
        jobPath(spec),
      );
    }
    let body = job.body;
    let skip = new Set<string>();
    if (hasLocalImages(family, body)) {
      const inlined = await inlineLocalImages(family, body, manifest.source, this.#cache);
      body = inlined.body;
      skip = new Set(inlined.problems.map((problem) => problem.path.join(".")));
      for (const problem of inlined.problems)
        reportIssue(manifest, job, strayFileOrProblem(job, problem), seen);
    }
    const validated = validateWithCells(family, job, body, this.#cells);
    body = validated.body;
    const privateUrls = manifest.settings?.gateway.privateUrls === true;
    const issues = validated.issues
      .filter((issue) => !skip.has(issue.path.join(".")))
      .filter((issue) => !(privateUrls && issue.rule === PUBLIC_URL_RULE))
      .map((issue) => withRunnerKeyHint(issue, family));
    // Data URIs as written (local files were read above); a path with a problem is not read.
    const reported = new Set([...skip, ...issues.map((issue) => issue.path.join("."))]);
    issues.push(...(await dataUriImageIssues(family, job.body, this.#dataUris, reported)));
    for (const issue of issues) reportIssue(manifest, job, issue, seen);
    checkHeaders(manifest, job, family);
    const errors = issues.filter((issue) => issue.severity !== "warning");
    if (errors.length === 0 && skip.size === 0)
      return { job, family, endpoint: family.path?.(body) ?? family.endpoint, body };
    return undefined;
  }

  /** Every problem found, once the last expansion is checked. */
  finish(): Diagnostic[] {
    // A problem of the job's own text found in every combination belongs to no one combination.
    for (const issue of this.#seen.values()) {
      if (!issue.inMatrix && issue.more + 1 === issue.expansions)
        issue.diagnostic.message = issue.base;
    }
    return this.#manifest.reporter.diagnostics.slice(this.#start);
  }
}

/**
 * A file of `rows: { files }` that is no picture, named by its own row in an image field: a
 * stray file of the folder (notes, a clip), whose row makes no task, with a warning.
 */
function strayFileOrProblem(job: ExpandedJob, problem: LocalImageProblem): RequestIssue {
  const row = job.vars.row as { file?: unknown } | undefined;
  const stray = problem.notAPicture !== undefined && problem.notAPicture === row?.file;
  if (job.spec.rows?.files === undefined || !stray) return problem;
  return {
    path: problem.path,
    rule: "not-media",
    message: `${problem.message}: it makes no task; a narrower files: pattern leaves it out`,
    severity: "warning",
  };
}

/**
 * An unknown field nearest to a runner key (`form:` for `from:`) is taken for that key
 * misspelt; the family alone knows only its request fields.
 */
function withRunnerKeyHint(issue: RequestIssue, family: Family): RequestIssue {
  const [field] = issue.path;
  if (issue.rule !== "unknown-field" || issue.path.length !== 1 || typeof field !== "string")
    return issue;
  const match = suggest(field, [...RUNNER_KEYS, ...familyFields(family)]);
  if (match === undefined || !(RUNNER_KEYS as readonly string[]).includes(match)) return issue;
  return { ...issue, message: `unknown field (did you mean "${match}"? a key of the job itself)` };
}

/** A passthrough job is sent as written (with a warning), if gwrun knows where to send it. */
function checkPassthrough(
  manifest: ExpandedManifest,
  job: ExpandedJob,
  family: Family | undefined,
  warned: Set<string>,
): CheckedJob | undefined {
  const { reporter } = manifest;
  const { spec } = job;
  if (!warned.has(spec.id)) {
    warned.add(spec.id);
    reporter.at(
      ["passthrough"],
      "passthrough",
      `job "${spec.id}" is sent without checking it against a model family`,
      { key: true, severity: "warning" },
      jobPath(spec),
    );
  }
  const endpoint =
    family?.endpoint ?? (spec.endpoint === undefined ? undefined : ENDPOINT_PATHS[spec.endpoint]);
  if (endpoint === undefined) {
    const model = typeof job.body.model === "string" ? job.body.model : "";
    reporter.at(
      ["model"],
      "endpoint",
      `model "${model}" is unknown, so a passthrough job must say endpoint: ${Object.keys(ENDPOINT_PATHS).join(" | ")}`,
      {},
      jobPath(spec),
    );
    return undefined;
  }
  return { job, family, endpoint: family?.path?.(job.body) ?? endpoint, body: job.body };
}

function reportUnknownModel(
  manifest: ExpandedManifest,
  job: ExpandedJob,
  model: string | undefined,
): void {
  const { reporter } = manifest;
  const { spec } = job;
  if (spec.fields.model !== undefined && typeof spec.fields.model !== "string") return; // a type error already
  if (model === undefined) {
    const where = spec.fields.model === undefined ? [] : ["model"];
    reporter.at(
      where,
      "required",
      "a job needs a model (and endpoint: chat | responses | messages | native for a text job)",
      {},
      jobPath(spec),
    );
    return;
  }
  const suggestion = suggestModel(model);
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  const inMatrix = spec.matrix?.model !== undefined && job.matrixIndex.model !== undefined;
  const path = inMatrix ? ["matrix", "model", job.matrixIndex.model as number] : ["model"];
  reporter.at(
    path,
    "unknown-model",
    `unknown model "${model}"${hint}; set passthrough: true to send it unchecked`,
    {},
    jobPath(spec),
  );
}

/** The messages endpoint needs its version header, which gwrun sends from `gateway.messages_version`. */
function checkHeaders(manifest: ExpandedManifest, job: ExpandedJob, family: Family): void {
  for (const rule of family.headers ?? []) {
    const configured = manifest.settings?.gateway.messagesVersion;
    const ok =
      configured !== undefined &&
      rule.name.test(configured.header) &&
      rule.value.test(configured.value);
    if (ok) continue;
    const message =
      configured === undefined
        ? `${family.endpoint} requires the ${rule.label} header: set gateway.messages_version: { header: ${rule.label}, value: YYYY-MM-DD }`
        : `gateway.messages_version must name a ${rule.label} header with a YYYY-MM-DD value`;
    manifest.reporter.at(["endpoint"], "required-header", message, {}, jobPath(job.spec));
  }
}
