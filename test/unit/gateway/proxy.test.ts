import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import {
  GatewayClient,
  GatewayError,
  isRetryable,
  mayHaveArrived,
  readProxies,
} from "../../../src/gateway/index.js";
import { type Proxies, proxyFor } from "../../../src/gateway/proxy.js";
import { requestFailure } from "../../../src/gateway/proxy-errors.js";
import { closedPort, startProxy, type TestProxy } from "../../helpers/proxy.js";

/** A gateway that takes any submit. */
let gateway: Server;
let gatewayUrl: string;

beforeEach(async () => {
  gateway = createServer((_req, res) => {
    res.end(JSON.stringify({ code: 200, data: { task_id: "task_1", status: "submitted" } }));
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterEach(async () => {
  gateway.closeAllConnections();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
});

/** A submit from a client whose environment is `env`; the error it failed with, if any. */
async function submitWith(env: NodeJS.ProcessEnv): Promise<unknown> {
  const client = new GatewayClient({ baseUrl: gatewayUrl, apiKey: "k", proxies: readProxies(env) });
  try {
    await client.submit("/v1/images/generations", { model: "acme-image-2" });
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

async function withProxy<T>(
  options: Parameters<typeof startProxy>[0],
  fn: (proxy: TestProxy) => Promise<T>,
): Promise<T> {
  const proxy = await startProxy(options);
  try {
    return await fn(proxy);
  } finally {
    await proxy.close();
  }
}

describe("reading the proxy settings", () => {
  it("reads lower-case forms first, masks credentials and takes host:port as http", () => {
    const proxies = readProxies({
      https_proxy: "proxy.corp:3128",
      HTTPS_PROXY: "http://other:1",
      HTTP_PROXY: "http://alice:s3cret-pw@proxy.corp:8080",
      NO_PROXY: " .corp.example, localhost ",
    });
    expect(proxies?.https).toEqual({
      url: "http://proxy.corp:3128",
      shown: "http://proxy.corp:3128",
      variable: "HTTPS_PROXY",
      hasCredentials: false,
    });
    expect(proxies?.http?.shown).toBe("http://***@proxy.corp:8080");
    expect(proxies?.http?.variable).toBe("HTTP_PROXY");
    expect(proxies?.noProxy).toBe(".corp.example, localhost");
  });

  it("sends https through HTTP_PROXY when HTTPS_PROXY is not set, and nothing when neither is", () => {
    expect(readProxies({ HTTP_PROXY: "http://p:1" })?.https?.variable).toBe("HTTP_PROXY");
    expect(readProxies({ HTTPS_PROXY: "http://p:1" })?.http).toBeUndefined();
    expect(readProxies({ NO_PROXY: "*" })).toBeUndefined();
    // An empty lower-case form unsets the upper-case one, as undici reads them.
    expect(readProxies({ http_proxy: "", HTTP_PROXY: "http://p:1" })).toBeUndefined();
  });

  it("refuses a value that is not a proxy URL without repeating it", () => {
    const read = () => readProxies({ HTTPS_PROXY: "http://bob:hunter2-pw@[proxy" });
    expect(read).toThrow(GwError);
    expect(read).toThrow("HTTPS_PROXY is not a proxy URL");
    try {
      read();
    } catch (error) {
      expect(
        JSON.stringify({ ...(error as GwError), message: (error as Error).message }),
      ).not.toContain("hunter2");
    }
    expect(() => readProxies({ HTTP_PROXY: "ftp://proxy:21" })).toThrow(/HTTP_PROXY/);
  });
});

describe("NO_PROXY", () => {
  const proxies = (noProxy: string): Proxies =>
    readProxies({ HTTP_PROXY: "http://p:1", NO_PROXY: noProxy }) as Proxies;
  it.each([
    ["", "http://127.0.0.1:8000", true],
    ["*", "http://gw.example.com", false],
    ["example.com", "http://gw.example.com", false],
    [".example.com", "http://gw.example.com", false],
    ["*.example.com", "http://example.com", false],
    ["example.com", "http://notexample.com", true],
    ["gw.example.com:8443", "http://gw.example.com:8443", false],
    ["gw.example.com:8443", "http://gw.example.com", true],
    ["gw.example.com:80", "http://gw.example.com", false],
    ["localhost", "http://127.0.0.1:8000", true],
    ["example.com,127.0.0.1", "http://127.0.0.1:8000", false],
  ])("NO_PROXY=%j sends %s through the proxy: %s", (noProxy, url, proxied) => {
    expect(proxyFor(url, proxies(noProxy)) !== undefined).toBe(proxied);
  });

  it("the route named in errors is the route requests take", async () => {
    await withProxy({}, async (proxy) => {
      const { port } = new URL(gatewayUrl);
      const values = ["", "127.0.0.1", `127.0.0.1:${port}`, "127.0.0.1:1", "*", "localhost"];
      const routes: string[] = [];
      for (const noProxy of values) {
        const env = { HTTP_PROXY: proxy.url, NO_PROXY: noProxy };
        const before = proxy.requests.length;
        expect(await submitWith(env)).toBeUndefined();
        const taken = proxy.requests.length > before ? "proxy" : "direct";
        const named = proxyFor(gatewayUrl, readProxies(env)) === undefined ? "direct" : "proxy";
        expect(`${noProxy}: ${taken}`).toBe(`${noProxy}: ${named}`);
        routes.push(taken);
      }
      // No default bypass: loopback goes through the proxy unless NO_PROXY names it.
      expect(routes).toEqual(["proxy", "direct", "direct", "proxy", "direct", "proxy"]);
    });
  });
});

describe("a proxy that refuses", () => {
  it("a proxy that is down gives a retryable error naming it, that never reached the gateway", async () => {
    const port = await closedPort();
    const error = await submitWith({ HTTP_PROXY: `http://alice:pr0xy-pw@127.0.0.1:${port}` });
    expect(error).toBeInstanceOf(GatewayError);
    const { code, message } = error as GatewayError;
    expect(code).toBe(ErrorCode.Proxy);
    expect(message).toBe(
      `submit to /v1/images/generations: cannot reach the proxy http://***@127.0.0.1:${port} (HTTP_PROXY): ECONNREFUSED; check that it runs and HTTP_PROXY names it, or add 127.0.0.1 to NO_PROXY if it is reached without the proxy`,
    );
    expect(isRetryable(error)).toBe(true);
    // Not sent: the submit is not looked for as one that may have been paid.
    expect(mayHaveArrived(error)).toBe(false);
  });

  it("a proxy that asks for credentials (407) says how to give them, and is not retried", async () => {
    await withProxy({ credentials: "alice:right-pw" }, async (proxy) => {
      const missing = (await submitWith({ HTTP_PROXY: proxy.url })) as GatewayError;
      expect(missing.code).toBe(ErrorCode.Proxy);
      expect(missing.message).toContain(
        `the proxy ${proxy.url} (HTTP_PROXY) asks for credentials (HTTP 407); give them in HTTP_PROXY as http://user:password@host:port`,
      );
      expect(isRetryable(missing)).toBe(false);
      const wrong = (await submitWith({
        HTTP_PROXY: `http://alice:wrong-pw@127.0.0.1:${proxy.port}`,
      })) as GatewayError;
      expect(wrong.message).toContain(
        `the proxy http://***@127.0.0.1:${proxy.port} (HTTP_PROXY) asks for credentials (HTTP 407); it refused the credentials in HTTP_PROXY`,
      );
      expect(wrong.message).not.toContain("wrong-pw");
      expect(proxy.requests).toEqual([]);
      expect(await submitWith({ HTTP_PROXY: proxy.urlWithCredentials })).toBeUndefined();
      expect(proxy.requests).toContain("POST /v1/images/generations");
    });
  });

  it("a proxy that will not open the way (502) names itself and the gateway's host, not the gateway", async () => {
    await withProxy({ refuseWith: 502 }, async (proxy) => {
      const error = (await submitWith({
        HTTPS_PROXY: "http://x:1",
        HTTP_PROXY: proxy.url,
      })) as GatewayError;
      const host = new URL(gatewayUrl).host;
      expect(error.code).toBe(ErrorCode.Proxy);
      expect(error.status).toBeUndefined();
      expect(error.message).toContain(
        `the proxy ${proxy.url} (HTTP_PROXY) would not open a connection to ${host} (HTTP 502)`,
      );
      expect(isRetryable(error)).toBe(true);
      expect(mayHaveArrived(error)).toBe(false);
      expect(proxy.tunnels).toEqual([host]);
    });
  });

  it("a connection lost once the tunnel was open stays a network failure that may have reached the gateway, naming the proxy", () => {
    const proxies = readProxies({ HTTPS_PROXY: "http://bob:tunnel-pw@proxy.corp:3128" });
    const url = "https://gw.example.com/v1/images/generations";
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const error = requestFailure(
      reset,
      "submit to /v1/images/generations",
      url,
      proxyFor(url, proxies),
    );
    expect(error.code).toBe(ErrorCode.Network);
    expect(error.message).toBe(
      "submit to /v1/images/generations through the proxy http://***@proxy.corp:3128 (HTTPS_PROXY): connection failed (ECONNRESET)",
    );
    expect(mayHaveArrived(error)).toBe(true);
    // Where the library quotes the proxy's URL, the credentials are masked.
    const quoted = new Error("socket hang up at http://bob:tunnel-pw@proxy.corp:3128");
    const masked = requestFailure(quoted, "download", url, proxyFor(url, proxies));
    expect(masked.message).toContain("(socket hang up at http://***@proxy.corp:3128)");
    expect(masked.message).not.toContain("tunnel-pw");
    // Without a proxy on the route, the error is the one gwrun always gave.
    const direct = requestFailure(reset, "download", "https://cdn.example.com/a.png", undefined);
    expect(direct.message).toBe("download: connection failed (ECONNRESET)");
  });
});
