import { writeFileSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SqliteStore } from "../../../src/store/index.js";
import { startViewServer } from "../../../src/view/index.js";
import { ManualClock } from "../../helpers/clock.js";
import { tempDir } from "../../helpers/manifest.js";
import { imageTask, openTestStore } from "../../helpers/store.js";

/** A raw request: the path is sent as written, `..` and all. */
function fetchRaw(
  url: string,
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request(
      { hostname, port, path: pathname, method: options.method ?? "GET", headers: options.headers },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

async function withViewer(
  fn: (viewer: { url: string; key: string }, store: SqliteStore) => Promise<void>,
): Promise<void> {
  const { store, runId } = await openTestStore();
  const dir = tempDir();
  const picture = path.join(dir, "a.png");
  writeFileSync(picture, "not really a png");
  await store.recordTasks(runId, [imageTask("k1")], 1);
  store.db
    .prepare(
      "INSERT INTO outputs (job_key, idx, state, path, content_type) VALUES ('k1', 0, 'downloaded', ?, 'image/png')",
    )
    .run(picture);
  const server = await startViewServer({
    store,
    project: dir,
    port: 0,
    token: "s3cret",
    clock: new ManualClock(),
  });
  try {
    await fn({ url: server.url, key: "k1" }, store);
  } finally {
    await server.close();
    await store.close();
  }
}

describe("gwrun view: safe by default", () => {
  it("serves a file the gateway called HTML as bytes, sandboxed, never as a page", async () => {
    await withViewer(async ({ url, key }, store) => {
      store.db.prepare("UPDATE outputs SET content_type = 'text/html' WHERE job_key = ?").run(key);
      const served = await fetchRaw(url, `/files/${key}/0/file`);
      expect(served.status).toBe(200);
      expect(served.headers["content-type"]).toBe("application/octet-stream");
      expect(served.headers["content-security-policy"]).toContain("sandbox");
    });
  });

  it("answers 404 for a path out of the tree and for a file the store does not record", async () => {
    await withViewer(async ({ url, key }) => {
      for (const pathname of [
        "/../../etc/passwd",
        "/files/../../etc/passwd",
        "/files/..%2F..%2Fetc%2Fpasswd/0/file",
        `/files/${key}/1/file`,
        `/files/${key}/0/thumb`,
        "/files/nokey/0/file",
        "/assets/../package.json",
      ]) {
        const answer = await fetchRaw(url, pathname);
        expect([pathname, answer.status]).toEqual([pathname, 404]);
        expect(answer.body).not.toContain("root:");
      }
      const recorded = await fetchRaw(url, `/files/${key}/0/file`);
      expect([recorded.status, recorded.body]).toEqual([200, "not really a png"]);
    });
  });

  it("refuses a review without the token with 403, a bad one with 4xx, never a stack trace", async () => {
    await withViewer(async ({ url, key }) => {
      const review = JSON.stringify({ key, index: 0, decision: "rejected", note: "no" });
      const post = (headers: Record<string, string>, body = review) =>
        fetchRaw(url, "/api/reviews", { method: "POST", headers, body });
      expect((await post({})).status).toBe(403);
      expect((await post({ "x-gwrun-token": "wrong" })).status).toBe(403);
      const token = { "x-gwrun-token": "s3cret" };
      for (const bad of [
        "{",
        "[]",
        '{"key":1}',
        JSON.stringify({ key, index: 0, decision: "maybe" }),
      ]) {
        const answer = await post(token, bad);
        expect(answer.status).toBe(400);
        expect(answer.body).not.toMatch(/\n\s+at /);
      }
      expect(
        (await post(token, JSON.stringify({ key, index: 3, decision: "approved" }))).status,
      ).toBe(404);
      expect((await post(token)).status).toBe(200);
      expect((await fetchRaw(url, "/runs/nope")).status).toBe(404);
      expect((await fetchRaw(url, "/runs/99")).status).toBe(404);
      expect((await fetchRaw(url, "/api/reviews", { method: "DELETE" })).status).toBe(405);
      // Another name for this machine is turned away: a page elsewhere cannot reach in by DNS.
      const port = new URL(url).port;
      expect((await fetchRaw(url, "/", { headers: { host: `evil.example:${port}` } })).status).toBe(
        403,
      );
    });
  });
});
