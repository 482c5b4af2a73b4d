import type { Dispatcher } from "undici";
import { ErrorCode, GwError } from "../core/errors.js";
import type { PeerTimeouts } from "../core/timeouts.js";
import { MASK } from "./gateway-text.js";
import { undici } from "./undici.js";

/**
 * Company networks: requests leave through the proxy HTTPS_PROXY (https:// URLs) or HTTP_PROXY
 * (http:// URLs, and https:// ones when HTTPS_PROXY is not set) names, lower-case forms read
 * first, except to the hosts NO_PROXY lists. undici's EnvHttpProxyAgent routes the requests;
 * the settings are read here once and handed to it, so that the route a request takes and the
 * proxy an error names are the same, and a proxy's credentials stay out of every message.
 */

/** One proxy as the environment sets it. */
export interface NetworkProxy {
  /** The URL requests go to, credentials included: never shown. */
  readonly url: string;
  /** The URL as messages show it: scheme, host and port, credentials masked. */
  readonly shown: string;
  /** The variable it was read from, e.g. `HTTPS_PROXY`. */
  readonly variable: string;
  /** Whether the URL carries a user name or password. */
  readonly hasCredentials: boolean;
}

export interface Proxies {
  http: NetworkProxy | undefined;
  /** HTTP_PROXY's proxy when HTTPS_PROXY is not set (as undici reads them). */
  https: NetworkProxy | undefined;
  /** Hosts reached directly: NO_PROXY as given ("" for none). */
  noProxy: string;
}

/** Schemes undici's proxy agent speaks. */
const PROXY_SCHEMES = new Set(["http:", "https:", "socks:", "socks5:"]);

/**
 * The proxies the environment sets, or undefined when it sets none. A value that is not a
 * proxy URL is a usage error that does not repeat it (it may hold a password).
 */
export function readProxies(env: NodeJS.ProcessEnv): Proxies | undefined {
  const http = readProxy(env, "http_proxy", "HTTP_PROXY");
  const https = readProxy(env, "https_proxy", "HTTPS_PROXY") ?? http;
  if (http === undefined && https === undefined) return undefined;
  return { http, https, noProxy: (env.no_proxy ?? env.NO_PROXY ?? "").trim() };
}

function readProxy(env: NodeJS.ProcessEnv, lower: string, upper: string): NetworkProxy | undefined {
  const variable = env[lower] === undefined ? upper : lower;
  const value = (env[lower] ?? env[upper] ?? "").trim();
  if (value === "") return undefined;
  // As curl: a proxy given as host:port speaks plain HTTP.
  const url = value.includes("://") ? value : `http://${value}`;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || !PROXY_SCHEMES.has(parsed.protocol) || parsed.hostname === "") {
    throw new GwError(ErrorCode.Usage, `${variable} is not a proxy URL`, {
      hint: `set ${variable} to http://host:port (with credentials: http://user:password@host:port), or unset it to connect directly`,
    });
  }
  const hasCredentials = parsed.username !== "" || parsed.password !== "";
  const shown = `${parsed.protocol}//${hasCredentials ? `${MASK}@` : ""}${parsed.host}`;
  return { url, shown, variable: variable.toUpperCase(), hasCredentials };
}

/**
 * The dispatcher requests go out through: a keep-alive pool, routed through `proxies` when
 * set, bounded by the timeout policy's (`timeouts`): to connect, and for response headers and
 * between body chunks.
 */
export async function outboundDispatcher(
  timeouts: PeerTimeouts,
  proxies: Proxies | undefined,
): Promise<Dispatcher> {
  const { Agent, EnvHttpProxyAgent } = await undici();
  // The same settings on every route, direct or through a proxy.
  const options = {
    connections: 32,
    keepAliveTimeout: 4_000,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.answerMs,
    bodyTimeout: timeouts.answerMs,
  };
  if (proxies === undefined) return new Agent(options);
  // Every request tunnels (CONNECT), http:// ones too: whatever answers is the gateway, a
  // proxy's refusal is never read as the gateway's, and the timeouts hold through the proxy.
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: proxies.http?.url ?? "",
    httpsProxy: proxies.https?.url ?? "",
    noProxy: proxies.noProxy,
  });
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/**
 * The proxy a request to `url` goes through, or undefined when it goes directly. NO_PROXY is
 * read as EnvHttpProxyAgent reads it (and as curl does): `*` for every host; else names, each
 * matching itself and its subdomains (a leading `.` or `*.` is dropped), with `:port` for
 * that port only. No host is passed by default, localhost and 127.0.0.1 included.
 */
export function proxyFor(url: string, proxies: Proxies | undefined): NetworkProxy | undefined {
  if (proxies === undefined) return undefined;
  const target = new URL(url);
  const proxy =
    target.protocol === "https:"
      ? proxies.https
      : target.protocol === "http:"
        ? proxies.http
        : undefined;
  if (proxy === undefined) return undefined;
  return bypassed(target, proxies.noProxy) ? undefined : proxy;
}

function bypassed(target: URL, noProxy: string): boolean {
  if (noProxy === "*") return true;
  // The host as written, IPv6 brackets kept.
  const hostname = target.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  return noProxy
    .split(/[,\s]/)
    .filter((entry) => entry !== "")
    .some((entry) => {
      const withPort = /^(.+):(\d+)$/.exec(entry);
      const name = (withPort?.[1] ?? entry).replace(/^\*?\./, "").toLowerCase();
      if (withPort !== null && Number(withPort[2]) !== port) return false;
      return hostname === name || hostname.endsWith(`.${name}`);
    });
}
