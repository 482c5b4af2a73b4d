import { type SecretRegistry, urlPassword } from "../core/secret-registry.js";
import { isRecord } from "../core/values.js";
import { secretRegistryOf } from "./request-secrets.js";
import type { ManifestSource } from "./source.js";
import { isWebUrl, rowsUrlOf, shownRowsUrl } from "./url-rows.js";

/**
 * The `rows:` URLs a manifest's check fetches, found before its jobs are expanded; one that
 * would carry a credential to its server and into the run's record is refused, never sent.
 */

/**
 * Every http(s) URL the jobs' `rows:` name that `source.fetchedRows` lacks, to be fetched. One
 * holding a credential of the environment (the secret registry) or a password is never sent:
 * it is set aside in `fetchedRows` as a problem.
 */
export function rowsUrlsToFetch(source: ManifestSource, env: NodeJS.ProcessEnv): string[] {
  const jobs = isRecord(source.value) && Array.isArray(source.value.jobs) ? source.value.jobs : [];
  const wanted = new Set<string>();
  let registry: SecretRegistry | undefined;
  for (const job of jobs) {
    const url = rowsUrlOf(isRecord(job) ? job.rows : undefined)?.url;
    if (url === undefined || !isWebUrl(url) || source.fetchedRows.has(url)) continue;
    registry ??= secretRegistryOf(source, env);
    const refused = credentialIn(url, registry);
    if (refused === undefined) wanted.add(url);
    else source.fetchedRows.set(url, { url, ...refused });
  }
  return [...wanted];
}

function credentialIn(
  url: string,
  registry: SecretRegistry,
): { problem: string; hint: string; rule: "secret-in-url" } | undefined {
  const shown = shownRowsUrl(url);
  const secret = registry.find(url);
  if (secret !== undefined)
    return {
      problem: `${shown} holds the value of ${secret.name}, a credential; a rows URL is sent to its server and kept in the run's record, so it must never carry one`,
      hint: "publish the sheet at a link that needs no credential, or download it beside the manifest and name the file",
      rule: "secret-in-url",
    };
  if (urlPassword(url) !== undefined)
    return {
      problem: `${shown} holds a password (user:password@host), which the run's record would keep`,
      hint: "publish the sheet at a link that needs no password, or download it beside the manifest and name the file",
      rule: "secret-in-url",
    };
  return undefined;
}
