import { DATA_FILE_MAX_BYTES } from "../core/file-gate.js";
import { sha256 } from "../core/hash.js";
import { fetchBodies } from "../gateway/index.js";
import {
  type ManifestSource,
  type RowsBody,
  rowsFormatOf,
  rowsUrlsToFetch,
  shownRowsUrl,
} from "../manifest/index.js";

/**
 * The bodies of the URLs the manifest's `rows:` name, put in `source.fetchedRows` before the
 * jobs are expanded: the manifest stage reads no network. A run continued takes the bodies
 * it recorded instead, so it goes on with the rows it began with.
 */

/**
 * Gives `source` the bodies of its `rows:` URLs: `recorded` ones (a run continued) as they
 * are, the others fetched now (through the environment's proxies, bounded by the timeout
 * policy and `DATA_FILE_MAX_BYTES`); a URL that cannot be fetched is kept with why.
 */
export async function fetchRowsUrls(
  source: ManifestSource,
  env: NodeJS.ProcessEnv,
  recorded: readonly RowsBody[] = [],
): Promise<void> {
  for (const body of recorded)
    if (!source.fetchedRows.has(body.url))
      source.fetchedRows.set(body.url, { ...body, recorded: true });
  const urls = rowsUrlsToFetch(source, env);
  const fetched = await fetchBodies(urls, {
    maxBytes: DATA_FILE_MAX_BYTES,
    shown: shownRowsUrl,
    env,
  });
  const now = Date.now();
  for (const [url, got] of fetched) {
    if ("problem" in got) {
      source.fetchedRows.set(url, { url, problem: got.problem, hint: got.hint });
      continue;
    }
    const text = got.bytes.toString("utf8");
    source.fetchedRows.set(url, {
      url,
      format: rowsFormatOf(url, got.contentType, text),
      sha256: sha256(got.bytes),
      text,
      fetchedAt: now,
      recorded: false,
    });
  }
}
