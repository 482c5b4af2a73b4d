import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256 } from "../../../src/core/hash.js";
import type { SqliteStore } from "../../../src/store/index.js";
import { startViewServer } from "../../../src/view/index.js";
import { ManualClock } from "../../helpers/clock.js";
import { rawRequest } from "../../helpers/http.js";
import { tempDir } from "../../helpers/manifest.js";
import { imageTask, openTestStore } from "../../helpers/store.js";

/** A 2 MB reference image, inlined in the request as the gateway takes it. */
const REFERENCE = `data:image/png;base64,${Buffer.alloc(1_500_000, 7).toString("base64")}`;

/** A viewer over a store with one run and one downloaded picture, `k1/0`, made from REFERENCE. */
async function withViewer(fn: (url: string, store: SqliteStore) => Promise<void>): Promise<void> {
  const { store, runId } = await openTestStore();
  const dir = tempDir();
  const picture = path.join(dir, "a.png");
  writeFileSync(picture, "not really a png");
  const request = { model: "acme-image-2", prompt: "a mug", images: [REFERENCE, REFERENCE] };
  await store.recordTasks(runId, [{ ...imageTask("k1"), request: JSON.stringify(request) }], 1);
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
    await fn(server.url, store);
  } finally {
    await server.close();
    await store.close();
  }
}

describe("gwrun view: not framed, no lookups by accident, small answers", () => {
  it("every page and answer refuses framing: frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    await withViewer(async (url) => {
      const port = new URL(url).port;
      const asked: [string, Parameters<typeof rawRequest>[2]][] = [
        ["/", {}],
        ["/runs/1", {}],
        ["/runs/1/outputs", {}],
        ["/assets/view.css", {}],
        ["/assets/outputs.js", {}],
        ["/api/runs", {}],
        ["/api/runs/1/progress", {}],
        ["/api/runs/1/timeline", {}],
        ["/api/runs/1/outputs", {}],
        ["/api/runs/1/events", { untilHeaders: true }],
        ["/api/outputs/k1/0", {}],
        ["/files/k1/0/file", {}],
        ["/files/k1/0/file", { method: "HEAD" }],
        ["/files/k1/0/file", { headers: { range: "bytes=2-5" } }],
        ["/files/k1/0/file", { headers: { range: "bytes=900-" } }],
        ["/favicon.ico", {}],
        ["/nowhere", {}],
        ["/files/k1/9/file", {}],
        ["/api/reviews", { method: "POST", body: "{}" }],
        ["/api/reviews", { method: "DELETE" }],
        ["/", { headers: { host: `evil.example:${port}` } }],
      ];
      const statuses: number[] = [];
      for (const [pathname, options] of asked) {
        const answer = await rawRequest(url, pathname, options);
        statuses.push(answer.status);
        expect([pathname, answer.headers["x-frame-options"]]).toEqual([pathname, "DENY"]);
        expect([pathname, answer.headers["content-security-policy"]]).toEqual([
          pathname,
          expect.stringContaining("frame-ancestors 'none'"),
        ]);
      }
      // Every kind of answer was asked for: pages, files, ranges, refusals, errors.
      expect(new Set(statuses)).toEqual(new Set([200, 206, 416, 204, 404, 403, 405]));
    });
  });

  it("an asset name that is no asset answers 404, the names of an object's own workings too", async () => {
    await withViewer(async (url) => {
      for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
        const answer = await rawRequest(url, `/assets/${name}`);
        expect([name, answer.status, answer.body]).toEqual([name, 404, "not found\n"]);
      }
      expect((await rawRequest(url, "/assets/common.js")).status).toBe(200);
    });
  });

  it("an output's request names each inlined file by size and hash, not its megabytes", async () => {
    await withViewer(async (url) => {
      const answer = await rawRequest(url, "/api/outputs/k1/0");
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeLessThan(5_000);
      const named = `data:image/png;base64,…(${REFERENCE.length} chars, sha256:${sha256(REFERENCE)})`;
      expect((JSON.parse(answer.body) as { request: unknown }).request).toEqual({
        model: "acme-image-2",
        prompt: "a mug",
        images: [named, named],
      });
    });
  });
});
