import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openPgStore } from "../../../src/store/index.js";
import { gwrunHere } from "../../helpers/cli.js";
import { testDatabase } from "../../helpers/postgres.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { startWebhook, type Webhook } from "../../helpers/webhook.js";

/** Webhooks told when a run ends, through the CLI against the simulator. */

const KEY = "test-key";
/** A webhook's path holds its token, as Slack's do: it must never be shown. */
const TOKEN_PATH = "/services/T000/B000/s3cr3tToken";

const hooks: Webhook[] = [];
afterEach(async () => {
  for (const hook of hooks.splice(0)) await hook.close();
});

async function webhook(statuses: readonly number[] | "hang" = [200]): Promise<Webhook> {
  const hook = await startWebhook(statuses);
  hooks.push(hook);
  return hook;
}

const MUGS = `jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
`;
const WITH_REFUSAL = `jobs:
  - id: shots
    model: acme-image-2
    size: "256x256"
    matrix: { subject: [a ceramic mug, a forbidden mug] }
    prompt: "{{subject}} on an oak table"
`;

/** Runs a manifest with `notify:` read from HOOK_A / HOOK_B in the environment. */
function run(
  scope: RunScope,
  name: string,
  notify: string,
  jobs: string,
  env: NodeJS.ProcessEnv,
  limits = "",
) {
  const settings = fastSettings(scope.outputDir).replace("downloads: 8", `downloads: 8${limits}`);
  const file = scope.write(`${name}.yaml`, `${settings}name: ${name}\nnotify:\n${notify}${jobs}`);
  const started = Date.now();
  // A PostgreSQL store is named in the environment, as a user names one with a password.
  const pg = scope.db.startsWith("postgres");
  const store = pg ? [] : ["--db", scope.db];
  const run = gwrunHere(["run", file, ...store, "--base-url", scope.sim.url], {
    cwd: scope.dir,
    env: { GW_API_KEY: KEY, ...(pg ? { GWRUN_STORE: scope.db } : {}), ...env },
  });
  return run.then((result) => ({ ...result, started, exited: Date.now() }));
}

describe("notify: webhooks when a run ends", () => {
  it("a done run posts one JSON summary to each webhook that wants done, none to one that wants failed", async () => {
    const all = await webhook();
    const failedOnly = await webhook();
    await withRun({ seed: "notify-done" }, async (scope) => {
      const result = await run(
        scope,
        "mugs",
        `  - { webhook: "\${HOOK_A}" }\n  - { webhook: "\${HOOK_B}", on: [failed] }\n`,
        MUGS,
        { HOOK_A: `${all.url}${TOKEN_PATH}`, HOOK_B: `${failedOnly.url}${TOKEN_PATH}` },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(failedOnly.posts).toHaveLength(0);
      expect(all.posts).toHaveLength(1);
      const post = all.posts[0]!;
      expect(post.path).toBe(TOKEN_PATH);
      expect(post.headers["content-type"]).toBe("application/json");
      const note = JSON.parse(post.body);
      expect(note).toMatchObject({
        run: { id: 1, name: "mugs" },
        outcome: "done",
        status: "done",
        exit_code: 0,
        counts: { done: 2 },
        failures: [],
        next: null,
        view: { command: expect.stringMatching(/^gwrun view --db /), page: "/runs/1" },
      });
      expect(note.spend.paid).toBeGreaterThan(0);
      expect(note.duration_ms).toBeGreaterThan(0);
      expect(note.text).toMatch(/^gwrun: run 1 mugs done after \d+s: 2 tasks, 2 done; paid /);
      expect(post.body).not.toContain(KEY);
      // The webhook's URL is a secret: the store's copy of the manifest names the variable only.
      for (const file of [scope.db, `${scope.db}-wal`])
        if (existsSync(file)) expect(readFileSync(file).includes("s3cr3tToken")).toBe(false);
    });
  });

  it("a failed run posts its failures with reasons and the retry command; on: [done] posts nothing", async () => {
    const failed = await webhook();
    const doneOnly = await webhook();
    await withRun({ seed: "notify-failed" }, async (scope) => {
      const result = await run(
        scope,
        "refused",
        `  - { webhook: "\${HOOK_A}", on: [failed, stopped] }\n  - { webhook: "\${HOOK_B}", on: [done] }\n`,
        WITH_REFUSAL,
        { HOOK_A: `${failed.url}/failed`, HOOK_B: `${doneOnly.url}/done` },
      );
      expect(result.code, result.stderr).toBe(1);
      expect(doneOnly.posts).toHaveLength(0);
      expect(failed.posts).toHaveLength(1);
      const note = JSON.parse(failed.posts[0]!.body);
      expect(note).toMatchObject({
        outcome: "failed",
        exit_code: 1,
        counts: { done: 1, rejected: 1 },
        failures: [{ label: "shots-e2", job: "shots", state: "rejected" }],
      });
      expect(note.failures[0].reason).toMatch(/safety filter/);
      expect(note.next).toMatch(/^gwrun retry --failed 1 --db .* \(shots-e2\)$/);
      // The summary printed by the run gives the same next step.
      expect(result.stderr + result.stdout).toContain(`next: ${note.next}`);
      expect(note.text).toContain("1 rejected");
      expect(note.text).toContain("first failure: shots-e2: ");
      expect(failed.posts[0]!.body).not.toContain(KEY);
    });
  });

  it("a run stopped by its budget posts outcome budget with the advice, exit 3; on: [done] posts nothing", async () => {
    const budget = await webhook();
    const doneOnly = await webhook();
    await withRun({ seed: "notify-budget" }, async (scope) => {
      const result = await run(
        scope,
        "budget",
        `  - { webhook: "\${HOOK_A}", on: [budget] }\n  - { webhook: "\${HOOK_B}", on: [done] }\n`,
        `jobs:
  - id: sets
    model: acme2.7-image
    matrix: { take: [${Array.from({ length: 12 }, (_, i) => i + 1).join(", ")}] }
    prompt: "A mug, take {{take}}"
`,
        { HOOK_A: `${budget.url}/budget`, HOOK_B: `${doneOnly.url}/done` },
        ", max_cost: 1",
      );
      expect(result.code, result.stderr).toBe(3);
      expect(doneOnly.posts).toHaveLength(0);
      expect(budget.posts).toHaveLength(1);
      const note = JSON.parse(budget.posts[0]!.body);
      expect(note).toMatchObject({
        outcome: "budget",
        status: "stopped",
        exit_code: 3,
        counts: { done: 5 },
        next: "raise max_cost and run again; done work is not paid twice",
      });
      expect(note.text).toMatch(/^gwrun: run 1 budget stopped after/);
    });
  });

  it("a webhook that answers 500 twice, then 200, gets the summary once, and the run says nothing of it", async () => {
    const flaky = await webhook([500, 500, 200]);
    await withRun({ seed: "notify-flaky" }, async (scope) => {
      const result = await run(scope, "flaky", `  - { webhook: "\${HOOK_A}" }\n`, MUGS, {
        HOOK_A: `${flaky.url}${TOKEN_PATH}`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(flaky.posts).toHaveLength(3);
      expect(new Set(flaky.posts.map((post) => post.body)).size).toBe(1);
      expect(result.stderr).not.toContain("notify");
    });
  });

  it("a webhook that never answers holds the exit at most its timeout, is reported with its URL masked, and the exit code stays", async () => {
    const silent = await webhook("hang");
    const refusing = await webhook([404]);
    await withRun({ seed: "notify-hang" }, async (scope) => {
      const result = await run(
        scope,
        "silent",
        `  - { webhook: "\${HOOK_A}", timeout: 1s }\n  - { webhook: "\${HOOK_B}" }\n`,
        MUGS,
        { HOOK_A: `${silent.url}${TOKEN_PATH}`, HOOK_B: `${refusing.url}${TOKEN_PATH}` },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(silent.posts).toHaveLength(1);
      // From the post's arrival to the process's exit: the 1 s limit, and a little to exit.
      expect(result.exited - silent.posts[0]!.at).toBeLessThan(2_500);
      expect(result.stderr).toContain(
        `gwrun: notify: not delivered to ${silent.url}/***: no answer within 1s`,
      );
      // A 404 is not worth another try.
      expect(refusing.posts).toHaveLength(1);
      expect(result.stderr).toContain(
        `gwrun: notify: not delivered to ${refusing.url}/***: it answered HTTP 404`,
      );
      expect(result.stderr).not.toContain("s3cr3tToken");
    });
  });

  it("a fleet's run is told of once, by the process that settles it, and the store keeps no webhook", async () => {
    const url = await testDatabase({ schema: true });
    const hook = await webhook();
    await withRun(
      { seed: "notify-fleet" },
      async (scope) => {
        const result = await run(scope, "fleet", `  - { webhook: "\${HOOK_A}" }\n`, MUGS, {
          HOOK_A: `${hook.url}${TOKEN_PATH}`,
        });
        expect(result.code, result.stderr).toBe(0);
        expect(hook.posts).toHaveLength(1);
        const note = JSON.parse(hook.posts[0]!.body);
        expect(note).toMatchObject({
          run: { name: "fleet" },
          outcome: "done",
          counts: { done: 2 },
        });
        const body = hook.posts[0]!.body;
        expect(body).not.toContain(KEY);
        expect(body).not.toContain(new URL(url).password);
        const store = await openPgStore(url);
        try {
          const row = await store.fleet.fleetRun(note.run.id);
          // Worked by the fleet (the run's own worker settled it), not by the engine alone.
          expect(row).toMatchObject({ worked_alone: false, status: "done" });
          expect(row?.resolved_manifest).toBeTruthy();
          expect(JSON.stringify(row)).not.toContain("s3cr3tToken");
        } finally {
          await store.close();
        }
      },
      url,
    );
  });
});
