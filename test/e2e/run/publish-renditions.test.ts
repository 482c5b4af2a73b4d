import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunHere } from "../../helpers/cli.js";
import { type ObjectStore, startObjectStore } from "../../helpers/object-storage.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";

/** `output.renditions` of a published run reach the bucket, with the sidecar that lists them. */

const PREFIX = "campaigns/renditions";

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ auth: true });
});
afterAll(async () => {
  await s3?.close();
});

function manifest(scope: RunScope): string {
  const settings = fastSettings(scope.outputDir).replace(
    /output: \{ dir: (.*) \}/,
    `output:
  dir: $1
  thumbnails: false
  publish: "s3://${s3.bucket}/${PREFIX}"
  renditions:
    - { name: feed, width: 120, height: 150, fit: cover, format: jpeg, quality: 80 }
    - { name: story, width: 90, height: 160, fit: cover, format: webp }
`,
  );
  return scope.write(
    "mugs.yaml",
    `${settings}name: mugs
jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
`,
  );
}

function gw(scope: RunScope, args: string[]) {
  const talks = args[0] === "run";
  return gwrunHere([...args, "--db", scope.db, ...(talks ? ["--base-url", scope.sim.url] : [])], {
    cwd: scope.dir,
    env: { GW_API_KEY: "test-key", ...s3.env },
  });
}

interface Listed {
  name: string;
  file: string;
  sha256: string;
}

const sha256Of = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("output.renditions with output.publish", () => {
  it("sends each rendition as its sidecar records it and the rewritten sidecar; gwrun publish sends no rendition whose bytes changed and minds none that is gone", async () => {
    await withRun({ seed: "publish-renditions" }, async (scope) => {
      const result = await gw(scope, ["run", manifest(scope)]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("renditions: 4 made");
      const keyOf = (file: string) =>
        `${PREFIX}/${path.relative(scope.outputDir, file).split(path.sep).join("/")}`;
      const renditionFiles: string[] = [];
      const store = await scope.open();
      try {
        const tasks = await scope.tasks();
        expect(tasks).toHaveLength(2);
        for (const task of tasks) {
          const output = path.resolve(scope.dir, task.outputs[0]?.path as string);
          const sidecar = readFileSync(`${output}.json`);
          const listed = (JSON.parse(sidecar.toString()) as { renditions: Listed[] }).renditions;
          expect(listed.map((one) => one.name).sort()).toEqual(["feed", "story"]);
          // The sidecar in the bucket is the one rewritten at the run's end.
          expect((await s3.get(keyOf(`${output}.json`))).body.equals(sidecar)).toBe(true);
          const rows = await store.publicationsOf(task.key);
          for (const rendition of listed) {
            const file = path.join(path.dirname(output), rendition.file);
            renditionFiles.push(file);
            expect(keyOf(file)).toMatch(new RegExp(`/mug/renditions/${rendition.name}/`));
            const onDisk = readFileSync(file);
            const { body } = await s3.get(keyOf(file));
            expect(body.equals(onDisk), rendition.file).toBe(true);
            expect(sha256Of(body)).toBe(rendition.sha256);
            const row = rows.find((one) => one.part === `rendition:${rendition.name}`);
            expect(row?.object_key).toBe(keyOf(file));
            expect(row?.sha256).toBe(rendition.sha256);
          }
        }
      } finally {
        await store.close();
      }
      expect(renditionFiles).toHaveLength(4);

      // A rendition changed on disk is not what its sidecar records: not sent, and said.
      const [changed, gone] = renditionFiles as [string, string];
      const published = (await s3.get(keyOf(changed))).body;
      writeFileSync(changed, Buffer.from("not the rendition"));
      const refused = await gw(scope, ["publish", "1"]);
      expect(refused.code).toBe(1);
      expect(refused.stdout + refused.stderr).toContain("does not match its record");
      expect((await s3.get(keyOf(changed))).body.equals(published)).toBe(true);
      // One not on disk is no problem of its output: the bucket has it.
      rmSync(changed);
      rmSync(gone);
      const mended = await gw(scope, ["publish", "1"]);
      expect(mended.code, mended.stdout + mended.stderr).toBe(0);
      expect(await s3.head(keyOf(gone))).toBeDefined();
    });
  });
});
