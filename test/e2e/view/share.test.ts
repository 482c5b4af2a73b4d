import { readFileSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256 } from "../../../src/core/hash.js";
import { gwrun } from "../../helpers/cli.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { viewUrl } from "../../helpers/view-url.js";

interface Answer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/** A request to loopback with the headers given (a Host of our choosing too); SSE is cut short. */
function ask(
  base: URL,
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: "127.0.0.1",
        port: base.port,
        path: pathname,
        method: options.method ?? "GET",
        headers: options.headers,
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        const done = () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers });
        if (String(response.headers["content-type"]).startsWith("text/event-stream")) {
          req.destroy();
          done();
          return;
        }
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", done);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const manifest = (dir: string) =>
  `${fastSettings(dir)}name: two\njobs:\n  - { id: mugs, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 2 }\n`;

/** Every route of src/view/routes.ts, the run's first output's for the files. */
function routes(key: string): string[] {
  const assets = ["view.css", "common.js", "runs.js", "run.js", "outputs.js", "failures.js"];
  return [
    "/",
    "/favicon.ico",
    "/runs/1",
    "/runs/1/outputs",
    "/runs/1/failures",
    ...assets.map((name) => `/assets/${name}`),
    "/api/runs",
    ...["progress", "timeline", "failures", "cost", "outputs", "events"].map(
      (what) => `/api/runs/1/${what}`,
    ),
    `/api/outputs/${key}/0`,
    ...["file", "thumb", "poster"].map((kind) => `/files/${key}/0/${kind}`),
    `/files/${key}/0/rendition/small`,
    "/no/such/page",
  ];
}

describe("gwrun view --share", () => {
  it("refuses to listen beyond loopback unshared, naming --share", async () => {
    const refused = await gwrun(["view", "--listen", "0.0.0.0:0", "--db", "/nonexistent/x.db"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--share");
  });

  it("lets in only invited reviewers, on every route; revoked, expired and guessed tokens are refused, guessing is stopped, and a decision records the reviewer", async () => {
    await withRun({}, async (scope) => {
      expect(
        (await scope.gwrun(["run", scope.write("two.yaml", manifest(scope.outputDir))]).done).code,
      ).toBe(0);
      const [first, second] = (await scope.tasks()).map((task) => task.key) as [string, string];
      const results = () => readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      const view = scope.spawn(["view", "--share", "--host", "review.example.com"]);
      try {
        const base = new URL(await viewUrl(view.child));
        expect(base.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        const invite = async (name: string, ...more: string[]) => {
          const done = await scope.gwrun(["view", "invite", name, "--port", base.port, ...more])
            .done;
          expect(done.code, done.stderr).toBe(0);
          expect(done.stderr).toContain("shown once");
          const link = new URL(done.stdout.trim());
          expect(link.origin).toBe(base.origin);
          return link.searchParams.get("token") ?? "";
        };
        const anna = await invite("anna");
        const ben = await invite("ben", "--expires", "1h");

        // No token: 401 on every route, reading or changing.
        for (const route of routes(first)) expect((await ask(base, route)).status, route).toBe(401);
        const review = (headers: Record<string, string>, key = first) =>
          ask(base, "/api/reviews", {
            method: "POST",
            headers: { "content-type": "application/json", ...headers },
            body: JSON.stringify({ key, index: 0, decision: "approved", note: null }),
          });
        expect((await review({})).status).toBe(401);

        // A reviewer's token: every route answers as it would (never 401).
        for (const route of routes(first))
          expect(
            (await ask(base, route, { headers: { "x-gwrun-token": anna } })).status,
            route,
          ).not.toBe(401);
        // The link's token is kept in a cookie, which reads but does not change.
        const opened = await ask(base, `/?token=${anna}`);
        expect(opened.status).toBe(200);
        expect(opened.body).toContain("reviewing as <b>anna</b>");
        const cookie = String(opened.headers["set-cookie"]).split(";")[0] ?? "";
        expect(String(opened.headers["set-cookie"])).toContain("HttpOnly");
        expect((await ask(base, "/assets/common.js", { headers: { cookie } })).status).toBe(200);
        expect((await review({ cookie })).status).toBe(403);
        // The Host a proxy forwards is answered; another is not.
        const as = (host: string) => ask(base, "/", { headers: { host, "x-gwrun-token": anna } });
        expect((await as("review.example.com")).status).toBe(200);
        expect((await as("evil.example")).status).toBe(403);

        // Revoked, expired, guessed: refused.
        expect((await scope.gwrun(["view", "revoke", "ben"]).done).code).toBe(0);
        expect((await ask(base, "/", { headers: { "x-gwrun-token": ben } })).status).toBe(401);
        const store = await scope.open();
        await store.recordViewToken({
          name: "old",
          tokenSha256: sha256("an-expired-token"),
          createdAt: 1,
          expiresAt: 2,
        });
        await store.close();
        const expired = await ask(base, "/", { headers: { "x-gwrun-token": "an-expired-token" } });
        expect(expired.status).toBe(401);
        const listed = await scope.gwrun(["view", "invites", "--json"]).done;
        const invites = JSON.parse(listed.stdout) as { name: string; state: string }[];
        expect(invites.map((row) => [row.name, row.state])).toEqual([
          ["anna", "active"],
          ["ben", "revoked"],
          ["old", "expired"],
        ]);
        expect(listed.stdout).not.toContain(anna);

        // Ten wrong tokens from one client (as a proxy on this host names it): 429 for a while,
        // even with a good token; another client is let in.
        const from = (client: string, token: string) =>
          ask(base, "/", { headers: { "x-forwarded-for": client, "x-gwrun-token": token } });
        for (let guess = 0; guess < 10; guess++)
          expect((await from("203.0.113.7", `guess-${guess}`)).status).toBe(401);
        expect((await from("203.0.113.7", "guess-10")).status).toBe(429);
        expect((await from("203.0.113.7", anna)).status).toBe(429);
        expect((await from("203.0.113.8", anna)).status).toBe(200);

        // A decision through the shared viewer records who made it.
        const decided = await review({ "x-gwrun-token": anna });
        expect(decided.status).toBe(200);
        expect(JSON.parse(decided.body)).toEqual({ ok: true, by: "anna" });
        const grid = await ask(base, "/api/runs/1/outputs", { headers: { "x-gwrun-token": anna } });
        const items = (JSON.parse(grid.body) as { outputs: { id: string; by: string | null }[] })
          .outputs;
        expect(items.find((item) => item.id === `${first}/0`)?.by).toBe("anna");
        expect(items.find((item) => item.id === `${second}/0`)?.by).toBeNull();
        await expect.poll(results, { timeout: 10_000 }).toContain('"by":"anna"');
      } finally {
        view.child.kill("SIGINT");
      }
      expect((await view.done).code).toBe(0);
      const line = results()
        .trim()
        .split("\n")
        .map((text) => JSON.parse(text) as { key: string; review: { by?: string } | null })
        .find((entry) => entry.key === first);
      expect(line?.review?.by).toBe("anna");
      const delivery = path.join(scope.dir, "delivery");
      expect((await scope.gwrun(["export", "--approved", delivery]).done).code).toBe(0);
      const [header, ...rows] = readFileSync(path.join(delivery, "review.csv"), "utf8")
        .trim()
        .split("\n");
      expect(header?.split(",").at(-1)).toBe("reviewer");
      expect(rows.filter((row) => row.endsWith(",anna"))).toHaveLength(1);
      expect(rows.filter((row) => row.endsWith(","))).toHaveLength(1);
    });
  });
});
