import { isScalar, type Node } from "yaml";
import { type Credential, SecretRegistry, urlPassword } from "../core/secret-registry.js";
import { isRecord } from "../core/values.js";
import { type Diagnostic, diagnosticAt } from "./diagnostics.js";
import type { ExpandedManifest } from "./expand.js";
import { ENV_REFERENCE } from "./interpolate.js";
import { jobPath, pathLabel } from "./job-path.js";
import type { ManifestSource } from "./source.js";
import type { ExpandedJob, JobSpec } from "./types.js";
import { locate, type Path } from "./yaml-nodes.js";

/**
 * Secrets kept out of what gwrun sends and writes. A request goes to the gateway and into the
 * run's record (the state database, each output's sidecar, results.jsonl); a label names
 * files and objects; `output.dir` and publish targets name folders and object keys. None may
 * carry the API key or any credential the environment holds (the secret registry).
 */

/** A value that must not be sent or written, and the name it is known by (never the value). */
export interface Secret {
  name: string;
  value: string;
  /** The gateway's API key, or another credential of the environment. */
  role: "key" | "variable";
}

type Env = Readonly<Record<string, string | undefined>>;

/** The API key a manifest is configured with: `gateway.api_key`, else GW_API_KEY. */
function keyOf(source: ManifestSource, env: Env): Credential | undefined {
  const gateway = isRecord(source.value) ? source.value.gateway : undefined;
  const configured = isRecord(gateway) ? gateway.api_key : undefined;
  if (typeof configured === "string" && configured !== "") {
    const written = typeof source.writtenKey === "string" ? source.writtenKey : "";
    const reference = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/.exec(written.trim());
    return { name: reference?.[1] ?? "gateway.api_key", value: configured };
  }
  return env.GW_API_KEY === undefined ? undefined : { name: "GW_API_KEY", value: env.GW_API_KEY };
}

/** The secrets a manifest could leak: its API key, and every credential of the environment. */
export function secretRegistryOf(source: ManifestSource, env: Env): SecretRegistry {
  const key = keyOf(source, env);
  return new SecretRegistry(env, key === undefined ? [] : [key]);
}

/** A string of a request body that holds a secret, and where in the body it is. */
interface Finding {
  path: (string | number)[];
  secret: Secret;
}

/** Every string in `value` holding a secret, with its path. */
function findingsIn(
  value: unknown,
  find: (text: string) => Secret | undefined,
  at: (string | number)[],
  found: Finding[],
): Finding[] {
  if (typeof value === "string") {
    const secret = find(value);
    if (secret !== undefined) found.push({ path: [...at], secret });
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      at.push(index);
      findingsIn(value[index], find, at, found);
      at.pop();
    }
  } else if (isRecord(value)) {
    for (const key in value) {
      at.push(key);
      findingsIn(value[key], find, at, found);
      at.pop();
    }
  }
  return found;
}

const NONE: readonly Finding[] = [];

/**
 * Reports, at the text it came from, each request field that would carry a secret. Returns
 * the expansions that would: the caller checks them no further, since other rules quote the
 * values they refuse.
 */
export function checkRequestSecrets(
  manifest: ExpandedManifest,
  env: Env,
): { registry: SecretRegistry; diagnostics: Diagnostic[]; withSecrets: Set<ExpandedJob> } {
  const check = new SecretCheck(manifest, env);
  const withSecrets = new Set(manifest.jobs.filter((job) => check.carries(job)));
  return { registry: check.registry, diagnostics: check.diagnostics, withSecrets };
}

/** `checkRequestSecrets` asked of one expansion at a time, in manifest order. */
export class SecretCheck {
  readonly registry: SecretRegistry;
  readonly diagnostics: Diagnostic[] = [];
  readonly #key: string | undefined;
  // Expansions of a job without templates share one body, one after another: searched once.
  #body: object | undefined;
  #findings: readonly Finding[] = NONE;
  readonly #labelsTold = new Set<JobSpec>();

  constructor(
    private readonly manifest: ExpandedManifest,
    env: Env,
  ) {
    this.registry = secretRegistryOf(manifest.source, env);
    this.#key = keyOf(manifest.source, env)?.value;
    this.diagnostics.push(...settingsSecrets(manifest, this.#find));
  }

  /** The secret `text` holds, as a finding names it. */
  readonly #find = (text: string): Secret | undefined => {
    const found = this.registry.find(text);
    if (found === undefined) return undefined;
    return { ...found, role: found.value === this.#key ? "key" : "variable" };
  };

  /**
   * Whether the expansion's request, or its label (a file's name), would carry a secret
   * (reported where it was written).
   */
  carries(job: ExpandedJob): boolean {
    if (this.registry.credentials.length === 0) return false;
    if (job.body !== this.#body) {
      this.#body = job.body;
      this.#findings = findingsIn(job.body, this.#find, [], []);
    }
    for (const finding of this.#findings)
      this.diagnostics.push(diagnosticOf(this.manifest, job, finding));
    const inLabel = job.label === undefined ? undefined : this.#find(job.label);
    // Told once a job: its expansions share the label's template.
    if (inLabel !== undefined && !this.#labelsTold.has(job.spec)) {
      this.#labelsTold.add(job.spec);
      const { reporter } = this.manifest;
      const start = reporter.diagnostics.length;
      reporter.at(
        [...jobPath(job.spec), "label"],
        "secret-in-name",
        `label: holds the value of ${inLabel.name}, a credential; a label names files, objects and the record's rows, so it must never carry one`,
      );
      this.diagnostics.push(...reporter.diagnostics.splice(start));
    }
    return this.#findings.length > 0 || inLabel !== undefined;
  }
}

/**
 * Settings that name what gwrun writes: the run's name, its output folder, its publish
 * targets; and the gateway's address, kept with each run (a password there belongs in the
 * environment, never in the record).
 */
function settingsSecrets(
  manifest: ExpandedManifest,
  find: (text: string) => Secret | undefined,
): Diagnostic[] {
  const { settings, reporter } = manifest;
  if (settings === undefined) return [];
  const start = reporter.diagnostics.length;
  const places: [(string | number)[], string, string][] = [
    [["name"], settings.name, "the run's name names its output folder and the record"],
    [["output", "dir"], settings.output.dir, "output.dir names folders and the record's paths"],
    ...settings.output.publish.map((target, index): [(string | number)[], string, string] => [
      ["output", "publish", ...(settings.output.publish.length > 1 ? [index] : [])],
      target.url,
      "a publish target names object keys and the record",
    ]),
  ];
  for (const [at, text, why] of places) {
    const secret = find(text);
    if (secret !== undefined)
      reporter.at(
        at,
        "secret-in-name",
        `${pathLabel(at)}: holds the value of ${secret.name}, a credential; ${why}, so it must never carry one`,
      );
  }
  if (urlPassword(settings.gateway.baseUrl) !== undefined)
    reporter.at(
      ["gateway", "base_url"],
      "secret-in-url",
      "gateway.base_url: holds a password (user:password@host), which each run's record would keep; the gateway's key belongs in the environment (GW_API_KEY), and base_url names the host only",
    );
  return reporter.diagnostics.slice(start);
}

/** Where a body's value was written: the job's field, its matrix entry, or `defaults:`. */
function writtenAt(job: ExpandedJob, path: (string | number)[]): Path {
  const [field, ...rest] = path;
  const { spec } = job;
  if (typeof field === "string") {
    const index = job.matrixIndex[field];
    if (spec.matrix?.[field] !== undefined && index !== undefined)
      return [...jobPath(spec), "matrix", field, index, ...rest];
    if (field in spec.fields) return [...jobPath(spec), ...path];
    if (job.fromDefaults.has(field)) return ["defaults", ...path];
  }
  return [...jobPath(spec), "id"];
}

function diagnosticOf(manifest: ExpandedManifest, job: ExpandedJob, finding: Finding): Diagnostic {
  const { reporter, source } = manifest;
  const { secret, path } = finding;
  const at = writtenAt(job, path);
  const found = locate(source.doc, source.doc.contents as Node, at);
  const inner = found.depth === at.length ? innerOffset(found.node, secret) : undefined;
  const span = reporter.span(at, inner === undefined ? {} : { inner });
  const field = pathLabel(path);
  const message =
    secret.role === "key"
      ? `${field}: holds the API key (${secret.name}); a request goes to the gateway and into the run's record, so it must never carry the key`
      : `${field}: holds the value of ${secret.name}, a credential; a request goes to the gateway and into the run's record, so it must never carry one`;
  const hint =
    secret.role === "key"
      ? "take the key out of this request field: gwrun sends it only in the request's header"
      : `take ${secret.name} out of this request field; if its value is no secret, read it from a variable whose name says no credential (no KEY, SECRET, TOKEN, PASSWORD, PAT, WEBHOOK, AUTH)`;
  return diagnosticAt(
    source.file,
    source.lineCounter,
    span,
    "secret-in-request",
    message,
    "error",
    hint,
  );
}

/** Where the secret enters a scalar as written: its `${NAME}`, the value itself, or a `{{name}}`. */
function innerOffset(node: Node, secret: Secret): number | undefined {
  if (!isScalar(node) || typeof node.value !== "string") return undefined;
  const written = node.value;
  for (const match of written.matchAll(ENV_REFERENCE))
    if (match[1] === secret.name) return match.index;
  const literal = written.indexOf(secret.value);
  if (literal >= 0) return literal;
  const template = written.indexOf("{{");
  return template >= 0 ? template : undefined;
}

/** The manifest text as diagnostics may show it: every secret written in it masked. */
export function concealSecrets(text: string, registry: SecretRegistry): string {
  return registry.mask(text, true);
}

/** Diagnostics as they may be shown or returned: every secret in them masked. */
export function concealInDiagnostics(
  diagnostics: readonly Diagnostic[],
  registry: SecretRegistry,
): Diagnostic[] {
  return diagnostics.map((diagnostic) => ({
    ...diagnostic,
    message: registry.mask(diagnostic.message),
    ...(diagnostic.hint === undefined ? {} : { hint: registry.mask(diagnostic.hint) }),
    ...(diagnostic.text === undefined ? {} : { text: registry.mask(diagnostic.text, true) }),
  }));
}
