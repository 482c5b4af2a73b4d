import { describeZodIssues } from "../core/zod-issues.js";
import { type EnvProblem, interpolateEnv } from "./interpolate.js";
import type { Reporter } from "./report.js";
import { notifySchema } from "./schema.js";
import { resolveNotify } from "./settings.js";
import type { ManifestSource } from "./source.js";
import type { NotifyTarget } from "./types.js";
import { readYamlValue } from "./yaml-syntax.js";

/**
 * `notify:` webhooks. Their URLs are secrets (a Slack webhook's path is its token): the
 * manifest is better off naming them with `${NAME}`, since the manifest as written is kept
 * with each run. Plain http:// is allowed (a local relay) but warned about beyond loopback.
 */

/** Only references: a default (`${NAME:-https://…}`) is written text, as a key's is; none is not. */
const ENV_ONLY = /\$\{[A-Za-z_][A-Za-z0-9_]*(:-)?\}/g;
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Warns at each webhook written out in the manifest, or sent over http:// off this host. */
export function checkNotify(source: ManifestSource, reporter: Reporter): void {
  const written = Array.isArray(source.writtenNotify) ? source.writtenNotify : [];
  const resolved = (source.value as { notify?: { webhook?: unknown }[] }).notify ?? [];
  written.forEach((target: { webhook?: unknown } | null, index) => {
    const webhook = target?.webhook;
    if (typeof webhook !== "string") return;
    const at = ["notify", index, "webhook"];
    if (webhook.replace(ENV_ONLY, "").trim() !== "")
      reporter.at(
        at,
        "literal-webhook",
        `notify[${index}].webhook: the webhook URL is written in the manifest, which is kept with each run; a webhook URL is a secret: read it from the environment with \${NAME} (e.g. \${SLACK_WEBHOOK})`,
        { severity: "warning" },
      );
    const url = resolved[index]?.webhook;
    if (typeof url !== "string" || !URL.canParse(url)) return;
    const parsed = new URL(url);
    if (parsed.protocol === "http:" && !LOOPBACK.test(parsed.hostname))
      reporter.at(
        at,
        "plain-http",
        `notify[${index}].webhook: http:// sends the run's summary unencrypted to ${parsed.hostname}; use https://`,
        { severity: "warning" },
      );
  });
}

/**
 * The webhooks of a manifest as written (a run's copy), read with this host's environment:
 * for the fleet process that settles a run. Problems are messages (the URL never in them).
 */
export function notifyTargetsOf(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): { targets: NotifyTarget[]; problems: string[] } {
  let written: unknown;
  try {
    written = (readYamlValue(text, file) as { notify?: unknown } | null)?.notify;
  } catch {
    return { targets: [], problems: ["the manifest the run recorded is not YAML"] };
  }
  if (written === undefined) return { targets: [], problems: [] };
  const unset: EnvProblem[] = [];
  const value: unknown = JSON.parse(JSON.stringify(written), (_key, item: unknown) =>
    typeof item === "string" ? interpolateEnv(item, env, unset) : item,
  );
  if (unset.length > 0)
    return {
      targets: [],
      problems: [
        ...new Set(
          unset.map(
            ({ name }) => `notify: environment variable ${name ?? "?"} is not set on this host`,
          ),
        ),
      ],
    };
  const parsed = notifySchema.safeParse(value);
  if (!parsed.success)
    return {
      targets: [],
      problems: describeZodIssues(notifySchema, value, parsed.error.issues).map(
        (issue) => `notify[${issue.path.join(".")}]: ${issue.message}`,
      ),
    };
  return { targets: resolveNotify(parsed.data), problems: [] };
}
