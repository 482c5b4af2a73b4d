import { isScalar, type Node } from "yaml";
import { isRecord } from "../core/values.js";
import { type Diagnostic, diagnosticAt } from "./diagnostics.js";
import type { ExpandedManifest } from "./expand.js";
import { ENV_REFERENCE } from "./interpolate.js";
import { jobPath, pathLabel } from "./job-path.js";
import type { ManifestSource } from "./load.js";
import type { ExpandedJob } from "./types.js";
import { locate, type Path } from "./yaml-nodes.js";

/**
 * Secrets kept out of requests. A request goes to the gateway and into the run's record (the
 * state database, each output's sidecar, results.jsonl), so none may carry the API key or the
 * value of an environment variable the manifest reads whose name marks a secret.
 */

/** Names that mark a secret, in any case: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`. */
const SECRET_NAME = /(?:_KEY|_TOKEN|_SECRET)$|PASSWORD/i;

/**
 * Shorter values are not looked for: they turn up in ordinary text by chance (a key "abc" in
 * "abcde"), while real keys and tokens are far longer.
 */
export const SECRET_MIN_LENGTH = 8;

/** A value that must not reach a request, and the name it is known by (never the value). */
export interface Secret {
  name: string;
  value: string;
  /** The gateway's API key, or another variable named like a secret. */
  role: "key" | "variable";
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether a variable's name marks its value as a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The secrets a manifest could leak: the API key it is configured with (`gateway.api_key`,
 * else GW_API_KEY) and every secret-named variable it reads, set to a value long enough to find.
 */
export function secretsOf(source: ManifestSource, env: Env): Secret[] {
  const secrets: Secret[] = [];
  const add = (name: string, value: string | undefined, role: Secret["role"]) => {
    if (value === undefined || value.length < SECRET_MIN_LENGTH) return;
    if (!secrets.some((known) => known.value === value)) secrets.push({ name, value, role });
  };
  const gateway = isRecord(source.value) ? source.value.gateway : undefined;
  const configured = isRecord(gateway) ? gateway.api_key : undefined;
  if (typeof configured === "string" && configured !== "") {
    const written = typeof source.writtenKey === "string" ? source.writtenKey : "";
    const reference = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/.exec(written.trim());
    add(reference?.[1] ?? "gateway.api_key", configured, "key");
  } else add("GW_API_KEY", env.GW_API_KEY, "key");
  for (const match of source.text.matchAll(ENV_REFERENCE)) {
    const name = match[1] as string;
    if (isSecretName(name)) add(name, env[name], "variable");
  }
  return secrets;
}

/** A string of a request body that holds a secret, and where in the body it is. */
interface Finding {
  path: (string | number)[];
  secret: Secret;
}

/** Every string in `value` holding a secret, with its path. */
function findingsIn(
  value: unknown,
  secrets: readonly Secret[],
  at: (string | number)[],
  found: Finding[],
): Finding[] {
  if (typeof value === "string") {
    for (const secret of secrets)
      if (value.includes(secret.value)) found.push({ path: [...at], secret });
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      at.push(index);
      findingsIn(value[index], secrets, at, found);
      at.pop();
    }
  } else if (isRecord(value)) {
    for (const key in value) {
      at.push(key);
      findingsIn(value[key], secrets, at, found);
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
): { secrets: Secret[]; diagnostics: Diagnostic[]; withSecrets: Set<ExpandedJob> } {
  const check = new SecretCheck(manifest, env);
  const withSecrets = new Set(manifest.jobs.filter((job) => check.carries(job)));
  return { secrets: check.secrets, diagnostics: check.diagnostics, withSecrets };
}

/** `checkRequestSecrets` asked of one expansion at a time, in manifest order. */
export class SecretCheck {
  readonly secrets: Secret[];
  readonly diagnostics: Diagnostic[] = [];
  // Expansions of a job without templates share one body, one after another: searched once.
  #body: object | undefined;
  #findings: readonly Finding[] = NONE;

  constructor(
    private readonly manifest: ExpandedManifest,
    env: Env,
  ) {
    this.secrets = secretsOf(manifest.source, env);
  }

  /** Whether the expansion's request would carry a secret (reported where it was written). */
  carries(job: ExpandedJob): boolean {
    if (this.secrets.length === 0) return false;
    if (job.body !== this.#body) {
      this.#body = job.body;
      this.#findings = findingsIn(job.body, this.secrets, [], []);
    }
    for (const finding of this.#findings)
      this.diagnostics.push(diagnosticOf(this.manifest, job, finding));
    return this.#findings.length > 0;
  }
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
      : `${field}: holds the value of ${secret.name}, a name that marks a secret; a request goes to the gateway and into the run's record, so it must never carry a secret`;
  const hint =
    secret.role === "key"
      ? "take the key out of this request field: gwrun sends it only in the request's header"
      : `take ${secret.name} out of this request field; if its value is no secret, read it from a variable whose name does not end in _KEY, _TOKEN or _SECRET nor contain PASSWORD`;
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
export function concealSecrets(text: string, secrets: readonly Secret[]): string {
  let shown = text;
  for (const { value } of secrets)
    if (shown.includes(value)) shown = shown.replaceAll(value, "*".repeat(value.length));
  return shown;
}
