import type { Dispatcher } from "undici";
import type { GwError } from "../core/errors.js";
import { commandIo } from "../core/io.js";
import { type PeerTimeouts, timeoutsOf } from "../core/timeouts.js";
import { outboundDispatcher, type Proxies, proxyFor, readProxies } from "./proxy.js";
import { requestFailure } from "./proxy-errors.js";
import { undici } from "./undici.js";

/**
 * The body of a manifest's `rows:` URL (a spreadsheet published as CSV): a GET through the
 * proxies the environment sets, as the gateway's requests go, bounded by the timeout policy's
 * `rows` entry and by a size. Loopback and private hosts are allowed: the data is the user's
 * own. No credential is sent (the manifest stage refuses a URL that holds one).
 */

/** Redirects followed from the URL written to the body. */
export const ROWS_MAX_REDIRECTS = 5;

/** A body fetched, or why not: `problem` a sentence naming the URL as shown, `hint` what to do. */
export type BodyFetch =
  | { bytes: Buffer; contentType: string | undefined }
  | { problem: string; hint: string };

export interface BodyFetchOptions {
  /** Bytes read at most; a longer body is a problem (reading stops there). */
  maxBytes: number;
  /** How messages show a URL: without credentials, query or fragment. */
  shown(url: string): string;
  /** The environment proxies and timeouts are read from (default: the command's). */
  env?: NodeJS.ProcessEnv;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const TIMEOUTS = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** GETs each URL once (a few at once), through one dispatcher released at the end; never throws. */
export async function fetchBodies(
  urls: readonly string[],
  options: BodyFetchOptions,
): Promise<Map<string, BodyFetch>> {
  const fetched = new Map<string, BodyFetch>();
  if (urls.length === 0) return fetched;
  const env = options.env ?? commandIo().env;
  let proxies: Proxies | undefined;
  try {
    proxies = readProxies(env);
  } catch (error) {
    const { message, hint } = error as GwError;
    for (const url of urls)
      fetched.set(url, {
        problem: `cannot fetch ${options.shown(url)}: ${message}`,
        hint: hint ?? "",
      });
    return fetched;
  }
  const timeouts = timeoutsOf(env).rows;
  const dispatcher = await outboundDispatcher(timeouts, proxies);
  try {
    const bodies = await Promise.all(
      urls.map((url) => fetchBody(dispatcher, url, options, timeouts, proxies)),
    );
    urls.forEach((url, index) => {
      fetched.set(url, bodies[index] as BodyFetch);
    });
  } finally {
    await dispatcher.destroy();
  }
  return fetched;
}

async function fetchBody(
  dispatcher: Dispatcher,
  url: string,
  options: BodyFetchOptions,
  timeouts: PeerTimeouts,
  proxies: Proxies | undefined,
): Promise<BodyFetch> {
  const shown = options.shown(url);
  let at = url;
  for (let hops = 0; ; hops++) {
    let answer: Dispatcher.ResponseData;
    try {
      const { request } = await undici();
      answer = await request(at, {
        method: "GET",
        headers: {
          "user-agent": "gwrun",
          accept:
            "text/csv, text/tab-separated-values, application/x-ndjson, application/jsonl, application/json;q=0.9, */*;q=0.5",
        },
        dispatcher,
      });
    } catch (error) {
      return failed(error, shown, at, timeouts, proxies);
    }
    const { statusCode, headers, body } = answer;
    const location = headers.location;
    if (REDIRECTS.has(statusCode) && typeof location === "string") {
      await body.dump().catch(() => undefined);
      const next = URL.canParse(location, at) ? new URL(location, at) : undefined;
      if (next === undefined || (next.protocol !== "http:" && next.protocol !== "https:"))
        return {
          problem: `${shown} redirects to ${next === undefined ? "an address that is no URL" : `a ${next.protocol} URL`}`,
          hint: "gwrun fetches rows over http:// and https:// only: give the address the sheet is served at",
        };
      if (hops >= ROWS_MAX_REDIRECTS)
        return {
          problem: `${shown} redirects more than ${ROWS_MAX_REDIRECTS} times`,
          hint: "give the address the sheet is served at, after its redirects",
        };
      at = next.href;
      continue;
    }
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump().catch(() => undefined);
      return { problem: `${shown} answered HTTP ${statusCode}`, hint: statusHint(statusCode) };
    }
    const type = headers["content-type"];
    const contentType = typeof type === "string" ? type : undefined;
    try {
      const bytes = await readBounded(body, headers["content-length"], options.maxBytes);
      if (bytes === undefined)
        return {
          problem: `${shown} holds more than ${mib(options.maxBytes)} MiB: gwrun stopped reading there`,
          hint: `rows from a URL are read up to ${mib(options.maxBytes)} MiB, as a data file is: split the sheet, or keep fewer rows in it`,
        };
      return { bytes, contentType };
    } catch (error) {
      return failed(error, shown, at, timeouts, proxies);
    }
  }
}

/** The body, or undefined once it holds more than `max` bytes (announced or read). */
async function readBounded(
  body: Dispatcher.ResponseData["body"],
  announced: string | string[] | undefined,
  max: number,
): Promise<Buffer | undefined> {
  if (typeof announced === "string" && Number(announced) > max) {
    body.destroy();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += (chunk as Buffer).length;
    if (length > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

function failed(
  error: unknown,
  shown: string,
  url: string,
  timeouts: PeerTimeouts,
  proxies: Proxies | undefined,
): BodyFetch {
  const code = (error as { code?: string } | null)?.code;
  if (code !== undefined && TIMEOUTS.has(code)) {
    const seconds =
      (code === "UND_ERR_CONNECT_TIMEOUT" ? timeouts.connectMs : timeouts.answerMs) / 1000;
    return {
      problem: `${shown} did not answer within ${seconds}s`,
      hint: "check that its server is up; on a slow link, set GWRUN_TIMEOUT_ROWS (e.g. 2m)",
    };
  }
  const proxy = proxyFor(url, proxies);
  const failure = requestFailure(error, `cannot fetch ${shown}`, url, proxy);
  return {
    problem: failure.message,
    hint:
      proxy === undefined
        ? "check the URL, and that its server is up and reachable from here"
        : "check the URL, and that the proxy lets its host through",
  };
}

function statusHint(status: number): string {
  if (status === 401 || status === 403)
    return "the rows must be readable without signing in: publish the sheet to the web as CSV and give that link";
  if (status === 404 || status === 410) return "check the URL: nothing is served there";
  if (status >= 500) return "the server failed: try again later";
  return "check the URL";
}

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
