import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun, gwrunAsync } from "../../helpers/cli.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { openTestStore } from "../../helpers/store.js";
import { viewUrl } from "../../helpers/view-url.js";

describe("gwrun view", () => {
  it("prints a loopback URL with its token, serves the runs, takes changes only with the token, and stops on Ctrl-C", async () => {
    const { store } = await openTestStore();
    const db = store.db.name;
    await store.close();
    const view = gwrunAsync(["view", "--db", db]);
    try {
      const line = await viewUrl(view.child);
      expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
      const url = new URL(line);
      const token = url.searchParams.get("token") ?? "";
      const page = await fetch(new URL("/", url));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<body data-page="runs">');
      const review = (headers: Record<string, string>) =>
        fetch(new URL("/api/reviews", url), { method: "POST", headers, body: "{}" });
      expect((await review({})).status).toBe(403);
      expect((await review({ "x-gwrun-token": token })).status).toBe(400);
    } finally {
      view.child.kill("SIGINT");
    }
    expect((await view.done).code).toBe(0);
  });

  it("refuses a port that is not one, and a database that does not exist", async () => {
    expect((await gwrun(["view", "--port", "http"])).code).toBe(2);
    const missing = await gwrun(["view", "--db", "/nonexistent/gwrun.db"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no state database");
  });

  it("decisions made in gwrun view rewrite the folder's index.html and results.jsonl, so the gallery counts what status counts", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "four.yaml",
        `${fastSettings(scope.outputDir)}name: four\njobs:\n  - { id: mugs, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 4 }\n`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const gallery = () => readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
      expect(gallery()).toContain('<b data-count="approved">0</b>');
      const keys = (await scope.tasks()).map((task) => task.key);
      const view = scope.spawn(["view"]);
      try {
        const url = new URL(await viewUrl(view.child));
        const decide = async (key: string | undefined, decision: string) => {
          const answer = await fetch(new URL("/api/reviews", url), {
            method: "POST",
            headers: { "x-gwrun-token": url.searchParams.get("token") ?? "" },
            body: JSON.stringify({ key, index: 0, decision, note: null }),
          });
          expect(answer.status).toBe(200);
        };
        await decide(keys[0], "approved");
        await decide(keys[1], "approved");
        await decide(keys[2], "approved");
        await decide(keys[3], "rejected");
        await expect
          .poll(gallery, { timeout: 10_000 })
          .toContain('<b data-count="rejected-outputs">1</b>');
      } finally {
        view.child.kill("SIGINT");
      }
      expect((await view.done).code).toBe(0);
      expect(gallery()).toContain('<b data-count="approved">3</b>');
      const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      expect(results.match(/"decision":"approved"/g)).toHaveLength(3);
      const status = await scope.gwrun(["status"]).done;
      expect(status.stdout).toContain("reviews: 3 approved, 1 rejected");
    });
  });
});
