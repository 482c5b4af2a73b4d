import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, gwrunAsync, gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS, type StoreKind } from "../../helpers/store.js";

/**
 * Commands that name no manifest, started from any folder, find the record's files where the
 * project the store belongs to has them; the viewer rewrites a folder's gallery after a review
 * wherever it was started, and every folder that holds a decided output.
 */

const JOBS = (name: string) => `name: ${name}
jobs:
  - { id: mugs, model: acme-image-2, prompt: "a mug", size: "256x256", repeat: 2 }
`;

/** The store flags and environment a user elsewhere names the scope's store with. */
function storeOf(scope: RunScope, kind: StoreKind) {
  return kind === "sqlite"
    ? { flags: ["--db", scope.db], env: { GW_API_KEY: "test-key" } }
    : { flags: [], env: { GW_API_KEY: "test-key", GWRUN_STORE: scope.db } };
}

/** A person's decision on the first output of a run's first task. */
async function decideFirstOutput(
  scope: RunScope,
  runId: number,
  decision: "approved" | "rejected",
): Promise<void> {
  const store = await scope.open();
  try {
    const [task] = await store.tasksOf(runId);
    await store.recordReview({ key: task?.key ?? "", index: 0, decision, note: null }, Date.now());
  } finally {
    await store.close();
  }
}

/** The first line `gwrun view` prints: its URL with the token. */
function viewUrl(view: ReturnType<typeof gwrunAsync>): Promise<URL> {
  return new Promise((resolve, reject) => {
    let text = "";
    view.child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(new URL(text.split("\n")[0] as string));
    });
    view.child.once("exit", () => reject(new Error(`gwrun view exited: ${text}`)));
  });
}

async function decide(url: URL, key: string, decision: "approved" | "rejected"): Promise<void> {
  const answer = await fetch(new URL("/api/reviews", url), {
    method: "POST",
    headers: { "x-gwrun-token": url.searchParams.get("token") ?? "" },
    body: JSON.stringify({ key, index: 0, decision, note: null }),
  });
  expect(answer.status).toBe(200);
}

function approvedIn(folder: string): number {
  const results = readFileSync(path.join(folder, "results.jsonl"), "utf8");
  return results.match(/"decision":"approved"/g)?.length ?? 0;
}

describe.each(STORE_KINDS)("commands started from another folder (%s)", (kind) => {
  it("status names the run's folder in its project; the viewer rewrites it after a review", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write("mugs.yaml", `${fastSettings("out")}${JOBS("mugs")}`);
        expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
        const { flags, env } = storeOf(scope, kind);
        const elsewhere = tempDir();
        const status: CliResult = await gwrunHere(["status", "--json", ...flags], {
          cwd: elsewhere,
          env,
        });
        expect(status.code, status.stderr).toBe(0);
        const folder = path.join(scope.dir, "out");
        expect(JSON.parse(status.stdout).run.output_dir).toBe(folder);

        const [task] = await scope.tasks();
        const view = gwrunAsync(["view", ...flags], { cwd: elsewhere, env });
        try {
          await decide(await viewUrl(view), task?.key ?? "", "approved");
          await expect.poll(() => approvedIn(folder), { timeout: 20_000 }).toBe(1);
        } finally {
          view.child.kill("SIGINT");
        }
        const ended = await view.done;
        expect(ended.code).toBe(0);
        expect(ended.stderr).not.toMatch(/not rewritten/);
      },
      await runStoreOf(kind),
    );
  });

  it("a decision on an output two folders hold rewrites both folders' records", async () => {
    await withRun(
      {},
      async (scope) => {
        const first = scope.write("first.yaml", `${fastSettings("out/first")}${JOBS("first")}`);
        const second = scope.write("second.yaml", `${fastSettings("out/second")}${JOBS("second")}`);
        expect((await scope.gwrun(["run", first]).done).code).toBe(0);
        const copied = await scope.gwrun(["run", second]).done;
        expect(copied.code, copied.stderr).toBe(0);
        expect(copied.stderr).toContain("delivered into out/second");
        expect(scope.sim.counters().submits.accepted).toBe(2);

        const [task] = await scope.tasks();
        const { flags, env } = storeOf(scope, kind);
        const view = gwrunAsync(["view", ...flags], { cwd: scope.dir, env });
        try {
          await decide(await viewUrl(view), task?.key ?? "", "approved");
          const both = () => [
            approvedIn(path.join(scope.dir, "out/first")),
            approvedIn(path.join(scope.dir, "out/second")),
          ];
          await expect.poll(both, { timeout: 20_000 }).toEqual([1, 1]);
        } finally {
          view.child.kill("SIGINT");
        }
        expect((await view.done).code).toBe(0);
        const gallery = readFileSync(path.join(scope.dir, "out/second/index.html"), "utf8");
        expect(gallery).toContain('<b data-count="approved">1</b>');
      },
      await runStoreOf(kind),
    );
  });

  it("retry --rejected and export --approved without a run act on the manifest whose run was decided, or ask which", async () => {
    await withRun(
      {},
      async (scope) => {
        const early = scope.write("early.yaml", `${fastSettings("out/early")}${JOBS("early")}`);
        const late = scope.write(
          "late.yaml",
          `${fastSettings("out/late")}${JOBS("late").replace("a mug", "a cup")}`,
        );
        expect((await scope.gwrun(["run", early]).done).code).toBe(0);
        expect((await scope.gwrun(["run", late]).done).code).toBe(0);
        const review = (runId: number, decision: "approved" | "rejected") =>
          decideFirstOutput(scope, runId, decision);
        // The earlier manifest's run was reviewed; the latest run is another manifest's.
        await review(1, "approved");
        const delivery = path.join(scope.dir, "delivery");
        const exported = await scope.gwrun(["export", "--approved", delivery]).done;
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stdout).toContain(
          `run 1 (early): 1 approved output exported to ${delivery}`,
        );

        await review(1, "rejected");
        const before = scope.sim.counters().submits.accepted;
        const retried = await scope.gwrun(["retry", "--rejected"]).done;
        expect(retried.code, retried.stderr).toBe(0);
        expect(retried.stderr).toContain("run 1 (early): 1 new take of rejected outputs");
        expect(scope.sim.counters().submits.accepted - before).toBe(1);

        // Two manifests' latest runs have rejected outputs, the latest run none: it asks which.
        await review(2, "rejected");
        const third = scope.write(
          "third.yaml",
          `${fastSettings("out/third")}${JOBS("third").replace("a mug", "a bowl")}`,
        );
        expect((await scope.gwrun(["run", third]).done).code).toBe(0);
        const sent = scope.sim.counters().submits.accepted;
        const asked = await scope.gwrun(["retry", "--rejected"]).done;
        expect(asked.code).toBe(2);
        expect(asked.stderr).toContain("runs of 2 manifests");
        expect(asked.stderr).toMatch(/gwrun retry --rejected 2 {3}\(late, started /);
        expect(asked.stderr).toMatch(/gwrun retry --rejected 1 {3}\(early, started /);
        expect(scope.sim.counters().submits.accepted).toBe(sent);
      },
      await runStoreOf(kind),
    );
  });

  it("export --approved without a run finds a reviewed earlier run after its manifest changed and another manifest ran", async () => {
    await withRun(
      {},
      async (scope) => {
        const early = scope.write("early.yaml", `${fastSettings("out/early")}${JOBS("early")}`);
        expect((await scope.gwrun(["run", early]).done).code).toBe(0);
        await decideFirstOutput(scope, 1, "approved");
        // The manifest changed and ran again (run 2: nothing reviewed), then another ran (run 3).
        scope.write(
          "early.yaml",
          `${fastSettings("out/early")}${JOBS("early").replace("a mug", "a jug")}`,
        );
        expect((await scope.gwrun(["run", early]).done).code).toBe(0);
        const late = scope.write(
          "late.yaml",
          `${fastSettings("out/late")}${JOBS("late").replace("a mug", "a cup")}`,
        );
        expect((await scope.gwrun(["run", late]).done).code).toBe(0);
        const delivery = path.join(scope.dir, "delivery");
        const exported = await scope.gwrun(["export", "--approved", delivery]).done;
        expect(exported.code, exported.stderr).toBe(0);
        expect(exported.stdout).toContain(
          `run 1 (early): 1 approved output exported to ${delivery}`,
        );
      },
      await runStoreOf(kind),
    );
  });
});
