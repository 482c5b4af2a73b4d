import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunHere } from "../../helpers/cli.js";
import {
  type ObjectStore,
  startFaultyFront,
  startObjectStore,
} from "../../helpers/object-storage.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/**
 * A run ends one way whichever driver works it (`src/run/end.ts`): here, an output its
 * storage will not take fails the run — exit 1, status done, what is missing told — in one
 * process on SQLite and in a fleet on PostgreSQL alike.
 */

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ auth: true });
});
afterAll(async () => {
  await s3?.close();
});

describe.each(STORE_KINDS)("a run's end (%s)", (kind) => {
  it("a failed publish fails the run the same way, whichever driver worked it", async () => {
    // Every upload is answered 500: nothing can be published.
    const front = await startFaultyFront(s3.endpoint, 1_000);
    try {
      await withRun(
        {},
        async (scope) => {
          const settings = fastSettings(scope.outputDir).replace(
            /output: \{ dir: (.*) \}/,
            `output: { dir: $1, publish: "s3://${s3.bucket}/ends-${kind}" }`,
          );
          const manifest = scope.write(
            "ends.yaml",
            `${settings}name: ends
jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
`,
          );
          const postgres = scope.db.startsWith("postgres");
          const ran = await gwrunHere(
            ["run", manifest, ...(postgres ? [] : ["--db", scope.db]), "--base-url", scope.sim.url],
            {
              cwd: scope.dir,
              env: {
                GW_API_KEY: "test-key",
                ...s3.env,
                AWS_ENDPOINT_URL_S3: front.endpoint,
                ...(postgres ? { GWRUN_STORE: scope.db } : {}),
              },
            },
          );
          expect(ran.code, ran.stderr).toBe(1);
          expect(ran.stderr).toContain("2 outputs not published:");
          expect(front.failed).toBeGreaterThan(0);
          const store = await scope.open();
          try {
            expect(await store.run(1)).toMatchObject({ status: "done", exit_code: 1 });
          } finally {
            await store.close();
          }
        },
        await runStoreOf(kind),
      );
    } finally {
      await front.close();
    }
  });
});
