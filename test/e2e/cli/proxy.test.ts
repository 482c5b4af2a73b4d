import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CliResult } from "../../helpers/cli.js";
import { QUICK, withProject } from "../../helpers/project.js";
import { closedPort, startProxy } from "../../helpers/proxy.js";

/** Item 2: a run on a company network, through the proxy its environment names. */

const CREDENTIALS = "alice-proxy:pr0xy-s3cret-pw";
const PASSWORD = "pr0xy-s3cret-pw";

/** Two pictures: two submits, polls, two downloads. */
const PICTURES = `${QUICK}name: shop
jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "1:1", repeat: 2 }
`;

/** Every byte gwrun left in the project (records, sidecars, results, the state database). */
function projectBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name)).toString("latin1"))
    .join("\n");
}

/** The proxy's credentials, in any form a leak might take. */
function expectNoCredentials(run: CliResult, project: string): void {
  const basic = Buffer.from(CREDENTIALS).toString("base64");
  const places: [string, string][] = [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
    ["the project", projectBytes(project)],
  ];
  for (const [where, text] of places) {
    for (const secret of [PASSWORD, "alice-proxy", basic]) {
      expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    }
  }
}

describe("networks as companies have them", () => {
  it("submits, polls and downloads all go through HTTP_PROXY, its credentials shown nowhere", async () => {
    const proxy = await startProxy({ credentials: CREDENTIALS });
    try {
      await withProject("sqlite", async (scope) => {
        const manifest = scope.write("shop.yaml", PICTURES);
        const run = await scope.gwrun(["run", manifest, "--json"], {
          env: { HTTP_PROXY: proxy.urlWithCredentials },
        });
        expect(run.code, run.stderr).toBe(0);
        const count = (pattern: RegExp) => proxy.requests.filter((r) => pattern.test(r)).length;
        expect(count(/^POST \/v1\/images\/generations$/)).toBe(2);
        expect(count(/^(GET \/v1\/tasks\/|POST \/v1\/tasks\/batch$)/)).toBeGreaterThanOrEqual(1);
        expect(count(/^GET \/files\//)).toBe(2);
        // Every request the gateway saw came through the proxy, in tunnels to the gateway.
        expect(proxy.requests).toHaveLength(scope.sim.counters().requests);
        expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(scope.sim.url).host]));
        const results = readFileSync(
          path.join(scope.project, "data/outputs/shop/results.jsonl"),
          "utf8",
        );
        expect(results.trim().split("\n")).toHaveLength(2);
        expectNoCredentials(run, scope.project);
      });
    } finally {
      await proxy.close();
    }
  });

  it("with NO_PROXY naming the gateway's host the proxy sees none of the run", async () => {
    const proxy = await startProxy();
    try {
      await withProject("sqlite", async (scope) => {
        const manifest = scope.write("shop.yaml", PICTURES);
        const run = await scope.gwrun(["run", manifest], {
          env: { HTTPS_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: "example.com,127.0.0.1" },
        });
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(/2\/2 tasks done/);
        expect(proxy.tunnels).toEqual([]);
        expect(proxy.requests).toEqual([]);
        expect(scope.sim.counters().downloads.served).toBe(2);
      });
    } finally {
      await proxy.close();
    }
  });

  it("a proxy that is down fails the run as a network failure, naming the masked proxy and what to do", async () => {
    const port = await closedPort();
    const shown = `http://***@127.0.0.1:${port}`;
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", PICTURES);
      const run = await scope.gwrun(["run", manifest], {
        env: { HTTP_PROXY: `http://${CREDENTIALS}@127.0.0.1:${port}` },
      });
      // Exit 1, as when the gateway itself cannot be reached: the tasks failed, none was paid.
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `2 × submit to /v1/images/generations: cannot reach the proxy ${shown} (HTTP_PROXY): ECONNREFUSED; check that it runs and HTTP_PROXY names it, or add 127.0.0.1 to NO_PROXY`,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr).not.toMatch(/GW_HTTP|HTTP 5\d\d/);
      // The state keeps the reason as shown: the proxy masked.
      const reasons = await scope.sql("SELECT reason FROM jobs");
      expect(reasons).toHaveLength(2);
      for (const { reason } of reasons) expect(reason).toContain(`cannot reach the proxy ${shown}`);
      expectNoCredentials(run, scope.project);
      // Nothing reached the gateway.
      expect(scope.sim.counters().requests).toBe(0);
    });
  });

  it("the built-in simulator (base_url: sim) is reached directly whatever proxy is set", async () => {
    const port = await closedPort();
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write(
        "shop.yaml",
        PICTURES.replace("name: shop", "name: shop\ngateway: { base_url: sim }"),
      );
      const run = await scope.gwrun(["run", manifest], {
        builtIn: true,
        env: {
          HTTP_PROXY: `http://127.0.0.1:${port}`,
          HTTPS_PROXY: `http://127.0.0.1:${port}`,
          GWRUN_SIM_TIME_SCALE: "3600",
        },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/2\/2 tasks done/);
    });
  });

  it("a proxy variable that is not a URL stops the run before anything is sent, without repeating it", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", PICTURES);
      const run = await scope.gwrun(["run", manifest], {
        env: { HTTPS_PROXY: `http://${CREDENTIALS}@[proxy` },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("HTTPS_PROXY is not a proxy URL");
      expect(run.stderr).toContain("set HTTPS_PROXY to http://host:port");
      expect(run.stderr).not.toContain(PASSWORD);
      expect(scope.sim.counters().requests).toBe(0);
    });
  });
});
