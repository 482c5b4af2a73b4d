import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DeleteObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunAsync, gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import {
  type ObjectStore,
  startFaultyFront,
  startObjectStore,
  startRefusingStore,
  startStallingFront,
} from "../../helpers/object-storage.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";
import { startWebhook } from "../../helpers/webhook.js";

/**
 * What leaves gwrun: file names without invisible characters, storage's text without escape
 * sequences, a storage that stops answering never holding a run, only recorded files
 * published, Slack text that mentions and links nobody. Against real servers on loopback.
 */

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ auth: true });
});
afterAll(async () => {
  await s3?.close();
});

const KEY = "test-key";

function publishing(scope: RunScope, name: string, prefix: string, jobs: string): string {
  const settings = fastSettings(scope.outputDir).replace(
    /output: \{ dir: (.*) \}/,
    `output: { dir: $1, publish: "s3://${s3.bucket}/${prefix}" }`,
  );
  return scope.write(`${name}.yaml`, `${settings}name: ${name}\n${jobs}`);
}

function gw(scope: RunScope, args: string[], env: Record<string, string> = s3.env) {
  const talks = args[0] === "run";
  return gwrunHere([...args, "--db", scope.db, ...(talks ? ["--base-url", scope.sim.url] : [])], {
    cwd: scope.dir,
    env: { GW_API_KEY: KEY, ...env },
  });
}

const MUGS = `jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
`;

describe("text and files on their way out", () => {
  it("drops bidi controls and zero-width characters from file names, the export folder and review.csv", async () => {
    await withRun({}, async (scope) => {
      const evil = "PAN\u202eGNP.exe\u200b";
      writeFileSync(path.join(scope.dir, "rows.csv"), `sku\n${evil}\n`);
      const manifest = scope.write(
        "rows.yaml",
        `${fastSettings(scope.outputDir)}name: rows
jobs:
  - { id: shot, model: acme-image-2, rows: rows.csv, prompt: "a mug", size: "256x256", label: "{{row.sku}}" }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const names = filesBelow(scope.outputDir);
      expect(names).toContain("shot/PANGNP.exe.png");
      expect(names.join("\n")).not.toMatch(/[\u202e\u200b]/);
      const store = await scope.open();
      try {
        const [task] = await store.tasksOf(1);
        await store.recordReview(
          { key: task?.key ?? "", index: 0, decision: "approved", note: null },
          1,
        );
      } finally {
        await store.close();
      }
      const delivery = path.join(scope.dir, "delivery");
      expect((await scope.gwrun(["export", "--approved", delivery]).done).code).toBe(0);
      expect(filesBelow(delivery).join("\n")).not.toMatch(/[\u202e\u200b]/);
      expect(readFileSync(path.join(delivery, "review.csv"), "utf8")).not.toMatch(/[\u202e\u200b]/);
    });
  });

  it("shows object storage's error text without its escape sequences, and without the credentials", async () => {
    const refusing = await startRefusingStore(
      "\u001b]0;owned\u0007\u001b[31mAccess Denied\u001b[0m",
    );
    try {
      await withRun({}, async (scope) => {
        const manifest = publishing(scope, "refused", "refused", MUGS);
        const result = await gw(scope, ["run", manifest], {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: refusing.endpoint,
        });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain("AccessDenied");
        expect(result.stderr).toContain("Access Denied");
        expect(result.stderr).not.toContain("\u001b");
        expect(result.stderr).not.toContain(s3.env.AWS_SECRET_ACCESS_KEY);
        expect(scope.sim.counters().submits.accepted).toBe(0);
      });
    } finally {
      await refusing.close();
    }
  });

  it("ends a run by itself when storage stops answering, lists what is not published, and publish mends it", async () => {
    const front = await startStallingFront(s3.endpoint, 1);
    try {
      await withRun({}, async (scope) => {
        const manifest = publishing(scope, "stalled", "stalled", MUGS);
        const env = {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: front.endpoint,
          GWRUN_TIMEOUT_STORAGE: "1s",
          GWRUN_TIMEOUT_STORAGE_END: "3s",
        };
        const started = Date.now();
        const ran = await gw(scope, ["run", manifest], env);
        expect(Date.now() - started).toBeLessThan(45_000);
        expect(ran.code, ran.stderr).toBe(1);
        expect(ran.stderr).toContain("2 outputs not published:");
        expect(ran.stderr).toContain("gwrun publish 1");
        expect(front.stalled).toBeGreaterThan(0);
        const status = await gw(scope, ["status", "--json"]);
        expect(JSON.parse(status.stdout).states).toEqual({ done: 2 });

        front.pass();
        const mended = await gw(scope, ["publish"], env);
        expect(mended.code, mended.stderr).toBe(0);
        expect((await s3.list("stalled/")).map((object) => object.key)).toContain(
          "stalled/mug/mug-r1.png",
        );
      });
    } finally {
      await front.close();
    }
  });

  it("a run's end lists the first outputs not published and says how many more; publish lists each and says when it tries uploads again", async () => {
    const fronts = [
      await startStallingFront(s3.endpoint, 1),
      await startStallingFront(s3.endpoint, 1),
    ];
    const faulty = await startFaultyFront(s3.endpoint, 3);
    try {
      await withRun({}, async (scope) => {
        const manifest = publishing(scope, "many", "many", MUGS.replace("repeat: 2", "repeat: 7"));
        const through = (front: { endpoint: string }) => ({
          ...s3.env,
          AWS_ENDPOINT_URL_S3: front.endpoint,
          GWRUN_TIMEOUT_STORAGE: "1s",
          GWRUN_TIMEOUT_STORAGE_END: "3s",
        });
        const ran = await gw(scope, ["run", manifest], through(fronts[0] as { endpoint: string }));
        expect(ran.code, ran.stderr).toBe(1);
        expect(ran.stderr).toContain("7 outputs not published:");
        expect(ran.stderr.match(/^(?:gwrun: )? {2}mug-r\d output 1: /gm)?.length, ran.stderr).toBe(
          5,
        );
        expect(ran.stderr).toContain("  and 2 more (`gwrun publish 1` lists each with its cause)");

        const listed = await gw(
          scope,
          ["publish", "1"],
          through(fronts[1] as { endpoint: string }),
        );
        expect(listed.code).toBe(1);
        expect(
          listed.stdout.match(/^(?:gwrun: )? {2}mug-r\d output 1: /gm)?.length,
          listed.stdout,
        ).toBe(7);
        expect(listed.stdout).not.toContain("more (");

        // Every upload's first request fails (the SDK's own tries too): the pause is told.
        const mended = await gw(scope, ["publish", "1"], {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: faulty.endpoint,
        });
        expect(mended.code, mended.stderr).toBe(0);
        expect(
          mended.stdout.match(/^(?:gwrun: )?publishing: .*trying uploads again/gm)?.length,
          mended.stdout,
        ).toBe(1);
        // A run says so too, as it happens: one task, so its uploads go one after another, and
        // its first object's three tries (the SDK's) fail.
        const again = publishing(
          scope,
          "more",
          "more",
          MUGS.replace("a ceramic mug", "a teapot").replace("repeat: 2", "repeat: 1"),
        );
        const failing = await startFaultyFront(s3.endpoint, 3);
        const run = await gw(scope, ["run", again], {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: failing.endpoint,
        }).finally(() => failing.close());
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toMatch(/publishing: .*trying uploads again/);
      });
    } finally {
      for (const front of [...fronts, faulty]) await front.close();
    }
  });

  it("the first Ctrl-C ends a run promptly while storage does not answer, its record intact", async () => {
    const front = await startStallingFront(s3.endpoint, 1);
    try {
      await withRun({}, async (scope) => {
        const manifest = publishing(scope, "waiting", "waiting", MUGS);
        const run = gwrunAsync(["run", manifest, "--db", scope.db, "--base-url", scope.sim.url], {
          cwd: scope.dir,
          env: { GW_API_KEY: KEY, ...s3.env, AWS_ENDPOINT_URL_S3: front.endpoint },
        });
        await expect.poll(() => front.stalled, { timeout: 30_000 }).toBeGreaterThan(0);
        const interrupted = Date.now();
        run.child.kill("SIGINT");
        const ended = await run.done;
        expect(Date.now() - interrupted).toBeLessThan(10_000);
        expect([1, 130]).toContain(ended.code);
        const status = await gw(scope, ["status", "--json"]);
        expect(JSON.parse(status.stdout).tasks).toBe(2);
      });
    } finally {
      await front.close();
    }
  });

  it("publishes only files as recorded: a sidecar replaced by a link is refused, not followed", async () => {
    await withRun({}, async (scope) => {
      const manifest = publishing(scope, "linked", "linked", MUGS);
      expect((await gw(scope, ["run", manifest])).code).toBe(0);
      const outside = path.join(tempDir(), "secret.txt");
      writeFileSync(outside, "the contents of a file outside the project");
      const sidecar = path.join(scope.outputDir, "mug/mug-r1.png.json");
      rmSync(sidecar);
      symlinkSync(outside, sidecar);
      // The bucket lost the sidecar: `gwrun publish` would send it again.
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: {
          accessKeyId: s3.env.AWS_ACCESS_KEY_ID as string,
          secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY as string,
        },
      });
      await client.send(
        new DeleteObjectCommand({ Bucket: s3.bucket, Key: "linked/mug/mug-r1.png.json" }),
      );
      client.destroy();
      const published = await gw(scope, ["publish"]);
      expect(published.stdout + published.stderr).toContain(
        "is a link, not the file gwrun recorded there",
      );
      const keys = (await s3.list("linked/")).map((object) => object.key);
      expect(keys).not.toContain("linked/mug/mug-r1.png.json");
    });
  });

  it("escapes a gateway's text in Slack messages, so it mentions and links nobody", async () => {
    const hook = await startWebhook();
    try {
      await withRun({ faults: { taskFailureRate: 1, escapeErrorRate: 1 } }, async (scope) => {
        const manifest = scope.write(
          "told.yaml",
          `${fastSettings(scope.outputDir)}name: told
notify: [{ webhook: "${hook.url}/slack", on: [failed] }]
${MUGS}`,
        );
        const ran = await scope.gwrun(["run", manifest]).done;
        expect(ran.code).toBe(1);
        expect(hook.posts).toHaveLength(1);
        const { text } = JSON.parse(hook.posts[0]?.body ?? "{}") as { text: string };
        expect(text).toContain("&lt;script&gt;");
        expect(text).not.toMatch(/[<>]/);
        expect(text).not.toContain("\u001b");
      });
    } finally {
      await hook.close();
    }
  });
});
