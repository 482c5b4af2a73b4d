import { ErrorCode } from "../core/errors.js";
import { GatewayError, networkError } from "./errors.js";
import type { NetworkProxy } from "./proxy.js";

/**
 * Failures of a request sent through a proxy. Requests tunnel through it (CONNECT), so what
 * fails before the tunnel is open is the proxy's, and nothing reached the gateway: such an
 * error names the proxy (masked) and says what to do. Later failures may have reached the
 * gateway; they stay network errors, naming the proxy they went through.
 */

/** undici's words for a tunnel the proxy would not open. */
const TUNNEL_REFUSED = /^Proxy response \((\d+)\) !== 200 when HTTP Tunneling/;

/** Failures to open a connection to the proxy itself. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The error for a request to `url` that got no answer, naming the proxy it went through. */
export function requestFailure(
  error: unknown,
  what: string,
  url: string,
  proxy: NetworkProxy | undefined,
): GatewayError {
  return proxy === undefined ? networkError(error, what) : proxyFailure(error, what, url, proxy);
}

/** The error for a request to `url` through `proxy` that got no answer from the gateway. */
export function proxyFailure(
  error: unknown,
  what: string,
  url: string,
  proxy: NetworkProxy,
): GatewayError {
  const cause = error as { code?: string; message?: string } | null;
  const { hostname, host } = new URL(url);
  const named = `the proxy ${proxy.shown} (${proxy.variable})`;
  const direct = `or add ${hostname} to NO_PROXY if it is reached without the proxy`;
  const status = TUNNEL_REFUSED.exec(cause?.message ?? "")?.[1];
  if (status === "407") {
    const fix = proxy.hasCredentials
      ? `it refused the credentials in ${proxy.variable}: correct them`
      : `give them in ${proxy.variable} as http://user:password@host:port`;
    return new GatewayError(
      ErrorCode.Proxy,
      `${what}: ${named} asks for credentials (HTTP 407); ${fix}`,
      { retryable: false, cause: error },
    );
  }
  if (status !== undefined) {
    return new GatewayError(
      ErrorCode.Proxy,
      `${what}: ${named} would not open a connection to ${host} (HTTP ${status}); check that the proxy lets this host through, ${direct}`,
      { retryable: Number(status) >= 500, cause: error },
    );
  }
  const code = cause?.code;
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new GatewayError(
      ErrorCode.Proxy,
      `${what}: cannot reach ${named}: ${code}; check that it runs and ${proxy.variable} names it, ${direct}`,
      { retryable: true, cause: error },
    );
  }
  // Should the library's words quote the proxy's URL, they show it masked.
  const masked = (text: string) => text.split(proxy.url).join(proxy.shown);
  return networkError(error, `${what} through ${named}`, masked);
}
