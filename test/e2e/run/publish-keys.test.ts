import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunHere } from "../../helpers/cli.js";
import { type ObjectStore, startObjectStore } from "../../helpers/object-storage.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/**
 * Where objects go: a target takes `{name}`, `{date}` and `{tick}` as `output.dir` does; a
 * prefix belongs to one output folder, and `plan` says so before a run refuses another; an
 * output delivered into a folder from another is published from its copy there.
 */

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ auth: true });
});
afterAll(async () => {
  await s3?.close();
});

const JOBS = `jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
  - { id: words, endpoint: chat, model: acme-5, messages: [{ role: user, content: "A caption" }], stream: false }
`;

function manifest(scope: RunScope, name: string, dir: string, target: string): string {
  const settings = fastSettings(dir).replace(
    /output: \{ dir: (.*) \}/,
    `output: { dir: $1, publish: "s3://${s3.bucket}/${target}" }`,
  );
  return scope.write(`${name}.yaml`, `${settings}name: ${name}\n${JOBS}`);
}

/** `gwrun` against the scope's store: a SQLite file by flag, PostgreSQL in the environment. */
function gw(scope: RunScope, args: string[]) {
  const talks = args[0] === "run";
  const postgres = scope.db.startsWith("postgres");
  const store = args[0] === "validate" || postgres ? [] : ["--db", scope.db];
  return gwrunHere([...args, ...store, ...(talks ? ["--base-url", scope.sim.url] : [])], {
    cwd: scope.dir,
    env: { GW_API_KEY: "test-key", ...s3.env, ...(postgres ? { GWRUN_STORE: scope.db } : {}) },
  });
}

describe.each(STORE_KINDS)("publish targets and object keys (%s)", (kind) => {
  it("fills {name} in a target as output.dir does, and publishes a delivered copy from its own folder", async () => {
    await withRun(
      { seed: "publish-names" },
      async (scope) => {
        const names = `names-${kind}`;
        const spring = manifest(scope, "spring", "out/{name}", `${names}/{name}`);
        const ran = await gw(scope, ["run", spring]);
        expect(ran.code, ran.stderr).toBe(0);
        const keys = (await s3.list(`${names}/`)).map((object) => object.key);
        expect(keys).toContain(`${names}/spring/mug/mug-r1.png`);
        expect(keys).toContain(`${names}/spring/words/words.txt`);
        // A text answer's record goes with it, as a picture's sidecar does.
        expect(keys).toContain(`${names}/spring/words/words.json`);
        expect(keys.some((key) => key.includes("{name}"))).toBe(false);

        // A copy of the manifest delivers the outputs made before into its own folder, and
        // publishes them from there: nothing is paid again and the run ends well.
        const summer = manifest(scope, "summer", "out/{name}", `${names}/{name}`);
        const plan = await gw(scope, ["plan", summer]);
        expect(plan.stdout).toContain(`publish: s3://${s3.bucket}/${names}/summer`);
        const copied = await gw(scope, ["run", summer]);
        expect(copied.code, copied.stderr).toBe(0);
        expect(copied.stderr).toContain("delivered into out/summer");
        expect(scope.sim.counters().submits.accepted).toBe(2);
        const theirs = (await s3.list(`${names}/summer/`)).map((object) => object.key);
        expect(theirs).toEqual(
          expect.arrayContaining([
            `${names}/summer/mug/mug-r1.png`,
            `${names}/summer/mug/mug-r1.png.json`,
            `${names}/summer/words/words.txt`,
            `${names}/summer/words/words.json`,
            `${names}/summer/results.jsonl`,
            `${names}/summer/index.html`,
          ]),
        );
        const record = JSON.parse(
          (await s3.get(`${names}/summer/words/words.json`)).body.toString(),
        );
        expect(record.submitted_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
        expect(record.completed_at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      },
      await runStoreOf(kind),
    );
  });

  it("refuses a prefix another folder's run publishes into, as plan says, before paying", async () => {
    await withRun(
      { seed: "publish-shared" },
      async (scope) => {
        const shared = `shared-${kind}`;
        const first = manifest(scope, "first", "out/first", shared);
        expect((await gw(scope, ["run", first])).code).toBe(0);
        const paid = scope.sim.counters().submits.accepted;
        const other = manifest(scope, "other", "out/other", `${shared}/inner`);
        const plan = await gw(scope, ["plan", other]);
        expect(plan.code).toBe(0);
        expect(plan.stdout).toContain(
          `publish: refused: s3://${s3.bucket}/${shared}/inner holds the objects of run 1 (first, folder ${path.join(scope.dir, "out/first")}) (through s3://${s3.bucket}/${shared})`,
        );
        const refused = await gw(scope, ["run", other]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain("nothing was submitted");
        expect(refused.stderr).toContain("publishing this folder there would write over them");
        expect(scope.sim.counters().submits.accepted).toBe(paid);
        // The first folder's own run may publish there again.
        expect((await gw(scope, ["run", first])).code).toBe(0);
      },
      await runStoreOf(kind),
    );
  });

  it("keeps a schedule's daily folders apart in the bucket too", async () => {
    await withRun(
      {},
      async (scope) => {
        const text = (target: string) =>
          `${fastSettings("out/{date}").replace(
            /output: \{ dir: (.*) \}/,
            `output: { dir: $1, publish: "s3://${s3.bucket}/${target}" }`,
          )}name: daily
schedule: { cron: "0 6 * * *", timezone: UTC }
${JOBS}`;
        const daily = `daily-${kind}`;
        const mixed = scope.write("mixed.yaml", text(daily));
        const refused = await gw(scope, ["validate", mixed]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(
          /mixed\.yaml:\d+:\d+ {2}error every tick publishes into s3:\/\/\S+\/daily-\w+, over the objects of the tick before/,
        );
        const dated = scope.write("dated.yaml", text(`${daily}/{date}`));
        for (const at of ["2026-03-01T07:00:00Z", "2026-03-02T07:00:00Z"]) {
          const ran = await gw(scope, ["run", dated, "--at", at]);
          expect(ran.code, ran.stderr).toBe(0);
        }
        const keys = (await s3.list(`${daily}/`)).map((object) => object.key);
        expect(keys).toContain(`${daily}/2026-03-01/mug/mug-r1.png`);
        expect(keys).toContain(`${daily}/2026-03-02/mug/mug-r1.png`);
      },
      await runStoreOf(kind),
    );
  });
});
