import { afterEach, describe, expect, it } from "vitest";
import { type BodyFetch, fetchBodies } from "../../../src/gateway/index.js";
import { shownRowsUrl } from "../../../src/manifest/index.js";
import { closedPort, startProxy, type TestProxy } from "../../helpers/proxy.js";
import { type SheetServer, startSheetServer } from "../../helpers/sheet-server.js";

/** A `rows:` URL's body fetched from a real server on loopback, directly and through a proxy. */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of open.splice(0)) await resource.close();
});

async function sheets(routes: Parameters<typeof startSheetServer>[0]): Promise<SheetServer> {
  const server = await startSheetServer(routes);
  open.push(server);
  return server;
}

async function fetchOne(url: string, env: NodeJS.ProcessEnv = {}, maxBytes = 1024 * 1024) {
  const fetched = await fetchBodies([url], { maxBytes, shown: shownRowsUrl, env });
  return fetched.get(url) as BodyFetch;
}

const CSV = "sku,name\nA1,mug\nB2,bowl\n";

describe("fetchBodies", () => {
  it("follows redirects to the body, with its Content-Type", async () => {
    const server = await sheets({
      "/pub": { redirect: "/moved?token=x", status: 307 },
      "/moved": { redirect: `/sheet` },
      "/sheet": { body: CSV, type: "text/csv; charset=utf-8" },
    });
    const got = await fetchOne(`${server.url}/pub?output=csv`);
    expect(got).toEqual({ bytes: Buffer.from(CSV), contentType: "text/csv; charset=utf-8" });
    expect(server.requests).toEqual(["GET /pub?output=csv", "GET /moved?token=x", "GET /sheet"]);
  });

  it("says an HTTP error's status, and names the URL without its query", async () => {
    const server = await sheets({ "/private": { body: "sign in", status: 403 } });
    expect(await fetchOne(`${server.url}/private?key=s3cret`)).toEqual({
      problem: `${server.url}/private?… answered HTTP 403`,
      hint: "the rows must be readable without signing in: publish the sheet to the web as CSV and give that link",
    });
    expect(await fetchOne(`${server.url}/gone`)).toMatchObject({
      problem: `${server.url}/gone answered HTTP 404`,
    });
  });

  it("stops at a few redirects, and at one to another scheme", async () => {
    const server = await sheets({
      "/loop": { redirect: "/loop" },
      "/away": { redirect: "ftp://127.0.0.1/sheet.csv" },
    });
    expect(await fetchOne(`${server.url}/loop`)).toMatchObject({
      problem: `${server.url}/loop redirects more than 5 times`,
    });
    expect(server.requests).toHaveLength(6);
    expect(await fetchOne(`${server.url}/away`)).toMatchObject({
      problem: `${server.url}/away redirects to a ftp: URL`,
    });
  });

  it("stops reading past the bound, announced or not", async () => {
    const big = "x".repeat(300 * 1024);
    const server = await sheets({
      "/announced.csv": { body: big },
      "/chunked.csv": { body: big, chunked: true },
      "/small.csv": { body: "a\n1\n", chunked: true },
    });
    for (const name of ["announced", "chunked"])
      expect(await fetchOne(`${server.url}/${name}.csv`, {}, 100 * 1024)).toMatchObject({
        problem: `${server.url}/${name}.csv holds more than 0.1 MiB: gwrun stopped reading there`,
      });
    expect(await fetchOne(`${server.url}/small.csv`, {}, 100 * 1024)).toMatchObject({
      bytes: Buffer.from("a\n1\n"),
    });
  });

  it("says a server that is not there, by the connection's error", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/sheet.csv`;
    expect(await fetchOne(url)).toEqual({
      problem: `cannot fetch ${url}: connection failed (ECONNREFUSED)`,
      hint: "check the URL, and that its server is up and reachable from here",
    });
  });

  it("goes through the proxy HTTP_PROXY names, and names a proxy that is down", async () => {
    const server = await sheets({ "/sheet.csv": { body: CSV, type: "text/csv" } });
    const proxy: TestProxy = await startProxy();
    open.push(proxy);
    const got = await fetchOne(`${server.url}/sheet.csv`, { HTTP_PROXY: proxy.url });
    expect(got).toMatchObject({ bytes: Buffer.from(CSV) });
    expect(proxy.requests).toEqual(["GET /sheet.csv"]);
    expect(proxy.tunnels).toEqual([new URL(server.url).host]);

    const down = `http://127.0.0.1:${await closedPort()}`;
    expect(await fetchOne(`${server.url}/sheet.csv`, { HTTP_PROXY: down })).toMatchObject({
      problem: expect.stringContaining(`cannot reach the proxy ${down} (HTTP_PROXY): ECONNREFUSED`),
    });
    // NO_PROXY naming the host: straight to it.
    const direct = await fetchOne(`${server.url}/sheet.csv`, {
      HTTP_PROXY: down,
      NO_PROXY: "127.0.0.1",
    });
    expect(direct).toMatchObject({ bytes: Buffer.from(CSV) });
  });

  it("gives up on a server that does not answer within GWRUN_TIMEOUT_ROWS", async () => {
    const server = await sheets({ "/sheet.csv": { hang: true } });
    const got = await fetchOne(`${server.url}/sheet.csv`, { GWRUN_TIMEOUT_ROWS: "200ms" });
    expect(got).toEqual({
      problem: `${server.url}/sheet.csv did not answer within 0.2s`,
      hint: "check that its server is up; on a slow link, set GWRUN_TIMEOUT_ROWS (e.g. 2m)",
    });
  });
});
