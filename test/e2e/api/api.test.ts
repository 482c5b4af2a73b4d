import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  loadManifest,
  openStore,
  plan,
  type RunEvent,
  resume,
  retry,
  run,
  runs,
  status,
  validate,
} from "../../../src/index.js";
import { tempDir } from "../../helpers/manifest.js";
import { fastSettings, withRun } from "../../helpers/run.js";

/** The package's functions called in this process, as a Node program calls them. */

/** A key the simulator insists on: given as an option, found nowhere after. */
const KEY = "api-key-9f3c1e7d2b";

const TWO = (outputDir: string) => `${fastSettings(outputDir)}name: two
jobs:
  - id: hero
    model: acme-image-2
    prompt: a ceramic mug
    repeat: 2
  - id: caption
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: One line about a mug }]
`;

describe("the API", () => {
  it("validate and loadManifest give every problem at file:line:col, and never throw", async () => {
    const dir = tempDir({
      "bad.yaml": "version: 1\njobs:\n  - id: hero\n    model: acme-imag-2\n    prompt: a mug\n",
    });
    const bad = await validate(path.join(dir, "bad.yaml"));
    expect(bad.valid).toBe(false);
    expect(bad.diagnostics).toMatchObject([
      { severity: "error", line: 4, col: 12, rule: "unknown-model" },
    ]);
    expect(bad.diagnostics[0]?.message).toContain("acme-image-2");
    const missing = await loadManifest(path.join(dir, "nope.yaml"));
    expect(missing).toMatchObject({ valid: false, text: undefined });
    expect(missing.diagnostics[0]?.message).toBe(
      `cannot read ${path.join(dir, "nope.yaml")}: no such file`,
    );
    const good = await validate(path.resolve("manifests/campaign.yaml"));
    expect(good).toMatchObject({ valid: true, name: "spring-campaign" });
    expect(good.tasks).toBeGreaterThan(0);
  });

  it("a run is awaited for its outcome and iterated for its events; plan, status and runs read it back; the key is stored nowhere", async () => {
    await withRun({ seed: "api", key: KEY }, async (scope) => {
      const manifest = scope.write("two.yaml", TWO(scope.outputDir));
      const options = { db: scope.db, baseUrl: scope.sim.url, apiKey: KEY, env: {} };
      expect((await plan(manifest, options)).plan?.totals.status.new).toBe(3);

      const handle = run(manifest, options);
      const events: RunEvent[] = [];
      for await (const event of handle) events.push(event);
      const outcome = await handle;
      expect(outcome).toMatchObject({ exitCode: 0, runId: 1, detached: false, diagnostics: [] });
      expect(outcome.result).toMatchObject({ end: "done", counts: { done: 3 } });
      expect(events[0]).toMatchObject({ type: "run:started", runId: 1, tasks: 3 });
      expect(events.at(-1)).toMatchObject({ type: "run:finished", end: "done" });
      expect(events.filter((event) => event.type === "task:done")).toHaveLength(3);

      const record = await status(1, { db: scope.db });
      expect(record).toMatchObject({ tasks: 3, states: { done: 3 }, failures: [] });
      expect(record.texts[0]?.text).not.toBe("");
      expect((await runs({ db: scope.db })).map((listed) => [listed.id, listed.status])).toEqual([
        [1, "done"],
      ]);
      const again = await plan(manifest, options);
      expect(again.plan?.totals.status).toMatchObject({ new: 0, done: 3 });
      expect(again.store).toEqual({ name: scope.db, exists: true });

      expect(JSON.stringify(events)).not.toContain(KEY);
      for (const file of readdirSync(scope.dir).filter((name) => name.startsWith("gwrun.db")))
        expect(readFileSync(path.join(scope.dir, file)).includes(KEY)).toBe(false);
      const store = await openStore({ db: scope.db });
      try {
        expect((await store.latestRun())?.manifest_text).not.toContain(KEY);
      } finally {
        await store.close();
      }
    });
  });

  it("a run against a real gateway without a key is refused before any request", async () => {
    await withRun({ seed: "api-nokey", key: KEY }, async (scope) => {
      const manifest = scope.write("two.yaml", TWO(scope.outputDir));
      await expect(
        run(manifest, { db: scope.db, baseUrl: scope.sim.url, env: {} }),
      ).rejects.toThrow(`no API key for ${scope.sim.url}`);
      expect(scope.sim.counters().submits.received).toBe(0);
    });
  });

  it("an invalid manifest runs nothing and its outcome carries the diagnostics", async () => {
    const dir = tempDir({ "bad.yaml": "version: 1\njobs:\n  - id: a\n    model: nope\n" });
    const outcome = await run(path.join(dir, "bad.yaml"), { db: path.join(dir, "x.db") });
    expect(outcome).toMatchObject({ exitCode: 2, runId: undefined, result: undefined });
    expect(outcome.diagnostics.map((d) => d.rule)).toContain("unknown-model");
  });

  it("a stop before the run goes ends it interrupted, with nothing submitted; resume finishes it", async () => {
    await withRun({ seed: "api-stop" }, async (scope) => {
      const manifest = scope.write("two.yaml", TWO(scope.outputDir));
      const options = { db: scope.db, project: scope.dir, baseUrl: scope.sim.url, apiKey: KEY };
      // Aborted before it is given, as a caller's own deadline may be.
      const stopped = await run(manifest, { ...options, signal: AbortSignal.abort() });
      expect(stopped).toMatchObject({ exitCode: 130, runId: 1 });
      expect(stopped.result?.end).toBe("interrupted");
      expect(scope.sim.counters().submits.received).toBe(0);
      const resumed = await resume(1, options);
      expect(resumed).toMatchObject({ exitCode: 0, runId: 1, result: { end: "done" } });
      // Into the run's own folder (`project`), not one under the caller's working folder.
      // The gallery and results.jsonl of the run's own folder (`project`) list them all.
      const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      expect(results.trim().split("\n")).toHaveLength(3);
      expect((await status(undefined, { db: scope.db })).states).toEqual({ done: 3 });
    });
  });

  it("handle.stop() during a run ends it interrupted, its submitted tasks kept for resume", async () => {
    await withRun({ seed: "api-stop-live" }, async (scope) => {
      const manifest = scope.write("two.yaml", TWO(scope.outputDir));
      const options = { db: scope.db, project: scope.dir, baseUrl: scope.sim.url, apiKey: KEY };
      const handle = run(manifest, options);
      const seen: string[] = [];
      for await (const event of handle) {
        seen.push(event.type);
        if (event.type === "task:submitted") handle.stop();
      }
      expect(await handle).toMatchObject({ exitCode: 130, result: { end: "interrupted" } });
      expect(seen).toContain("run:stopping");
      expect((await status(1, { db: scope.db })).run.status).toBe("interrupted");
      expect((await resume(1, options)).exitCode).toBe(0);
    });
  });

  it("retry puts failed tasks back and submits them again; with none of the kind asked, nothing", async () => {
    await withRun({ seed: "api-retry" }, async (scope) => {
      const manifest = scope.write(
        "refused.yaml",
        `${fastSettings(scope.outputDir)}name: refused
jobs:
  - { id: hero, model: acme-image-2, prompt: a forbidden mug }
`,
      );
      const options = { db: scope.db, project: scope.dir, baseUrl: scope.sim.url, apiKey: KEY };
      expect((await run(manifest, options)).exitCode).toBe(1);
      const received = scope.sim.counters().submits.received;
      const handle = retry(1, { ...options, failed: true });
      const notices: string[] = [];
      for await (const event of handle) if (event.type === "notice") notices.push(event.message);
      expect((await handle).exitCode).toBe(1);
      expect(notices[0]).toBe("gwrun: 1 task of run 1 back to pending (stuck ones to polling)");
      expect(scope.sim.counters().submits.received).toBeGreaterThan(received);
      const none = retry(1, { ...options, expired: true });
      const said: string[] = [];
      for await (const event of none) if (event.type === "notice") said.push(event.message);
      expect(await none).toMatchObject({ exitCode: 0, result: undefined });
      expect(said[0]).toContain(
        "run 1 (refused) has no expired tasks: nothing to retry, nothing submitted",
      );
    });
  });
});
