import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { DeleteObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunHere } from "../../helpers/cli.js";
import {
  type ObjectStore,
  startFaultyFront,
  startObjectStore,
} from "../../helpers/object-storage.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";

/** Outputs published to a real S3-compatible server (moto), through the CLI. */

const KEY = "test-key";
const PREFIX = "campaigns/spring";

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ auth: true });
});
afterAll(async () => {
  await s3?.close();
});

const JOBS = `jobs:
  - { id: mug, model: acme-image-2, prompt: a ceramic mug, size: "256x256", repeat: 2 }
  - id: clip
    model: acme-video-2.3-Fast
    from: mug
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
`;

function manifest(scope: RunScope, name: string, prefix = PREFIX, jobs = JOBS): string {
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

/** Every file under a folder, relative, with `/`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
    )
    .sort();
}

describe("output.publish: outputs delivered to object storage", () => {
  it("each output, its review image and sidecar, then results.jsonl and the gallery are uploaded, verified and recorded with key, size, sha256 and ETag", async () => {
    await withRun({ seed: "publish-all" }, async (scope) => {
      const file = manifest(scope, "mugs");
      const result = await gw(scope, ["run", file]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`4 outputs of run 1 in s3://${s3.bucket}/${PREFIX}`);
      // The bucket holds the folder as it is on disk, under the prefix.
      const objects = await s3.list(`${PREFIX}/`);
      const local = filesUnder(scope.outputDir).filter((name) => !name.startsWith(".gwrun"));
      expect(objects.map((object) => object.key.slice(PREFIX.length + 1))).toEqual(local);
      for (const object of objects) {
        const onDisk = readFileSync(
          path.join(scope.outputDir, object.key.slice(PREFIX.length + 1)),
        );
        const { body } = await s3.get(object.key);
        expect(body.equals(onDisk), object.key).toBe(true);
      }
      expect(local.filter((name) => name.endsWith(".mp4"))).toHaveLength(2);
      expect(local).toContain("results.jsonl");
      expect(local).toContain("index.html");
      // The record: each object's key, size, sha256 and ETag, as the bucket has them.
      const store = await scope.open();
      try {
        for (const task of await scope.tasks()) {
          const rows = await store.publicationsOf(task.key);
          const output = task.outputs[0];
          const parts = ["file", "sidecar"];
          if (output?.thumbnail) parts.push("thumbnail");
          if (output?.poster) parts.push("poster");
          expect(rows.map((row) => row.part).sort(), task.label).toEqual(parts.sort());
          for (const row of rows) {
            const head = await s3.head(row.object_key);
            expect(head?.bytes).toBe(row.bytes);
            expect(head?.etag).toBe(row.etag);
            expect(row.target).toBe(`s3://${s3.bucket}/${PREFIX}`);
          }
          const file = rows.find((row) => row.part === "file");
          expect(file?.sha256).toBe(task.outputs[0]?.sha256);
        }
      } finally {
        await store.close();
      }
      // Credentials reach neither the output, nor the folder, nor the store.
      const secret = s3.env.AWS_SECRET_ACCESS_KEY as string;
      expect(result.stdout + result.stderr).not.toContain(secret);
      for (const name of local)
        expect(readFileSync(path.join(scope.outputDir, name)).includes(secret), name).toBe(false);
      expect(readFileSync(scope.db).includes(secret)).toBe(false);
    });
  });

  it("plan counts a published output as done once its local file is gone, and gwrun publish sends again what the bucket lost", async () => {
    await withRun({ seed: "publish-plan" }, async (scope) => {
      const file = manifest(scope, "mugs", "plan");
      expect((await gw(scope, ["run", file])).code).toBe(0);
      rmSync(scope.outputDir, { recursive: true, force: true });
      const plan = await gw(scope, ["plan", file, "--json"]);
      expect(plan.code, plan.stderr).toBe(0);
      const { totals } = JSON.parse(plan.stdout) as {
        totals: { status: { new: number; done: number } };
      };
      expect(totals.status.new).toBe(0);
      expect(totals.status.done).toBeGreaterThanOrEqual(2);
      // Run again, nothing is paid: the clips' inputs are read back from the bucket.
      const again = await gw(scope, ["run", file]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain("4 tasks, 4 already done");
      expect(filesUnder(scope.outputDir)).toContain("mug/mug-r1.png");
      // An object removed from the bucket while the local file is there is sent again.
      const gone = (await s3.list("plan/")).find((object) => object.key.endsWith(".png"));
      expect(gone).toBeDefined();
      await deleteObject(gone?.key as string);
      const published = await gw(scope, ["publish"]);
      expect(published.code, published.stderr).toBe(0);
      expect(published.stdout + published.stderr).toContain("uploaded now");
      expect(await s3.head(gone?.key as string)).toBeDefined();
    });
  });

  it("an upload the server fails once is tried again, and each object is in the bucket once", async () => {
    const front = await startFaultyFront(s3.endpoint, 1);
    try {
      await withRun({ seed: "publish-retry" }, async (scope) => {
        const file = manifest(scope, "mugs", "retry");
        const result = await gw(scope, ["run", file], {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: front.endpoint,
        });
        expect(result.code, result.stderr).toBe(0);
        expect(front.failed).toBe(1);
        const objects = await s3.list("retry/");
        expect(new Set(objects.map((object) => object.key)).size).toBe(objects.length);
        expect(objects.filter((object) => /\.(png|mp4)$/.test(object.key))).toHaveLength(4);
      });
    } finally {
      await front.close();
    }
  });

  it("a wrong credential stops the run before anything is paid, with what to do, exit code 2, and nothing marked delivered", async () => {
    await withRun({ seed: "publish-refused" }, async (scope) => {
      const file = manifest(scope, "mugs", "refused");
      const wrong = "wrong-secret-key-1234";
      const result = await gw(scope, ["run", file], { ...s3.env, AWS_SECRET_ACCESS_KEY: wrong });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("SignatureDoesNotMatch");
      expect(result.stderr).toContain("check the credentials");
      expect(result.stderr).toContain("nothing was submitted");
      expect(result.stderr).not.toContain(wrong);
      expect(scope.sim.counters().submits.received).toBe(0);
      expect(await s3.list("refused/")).toEqual([]);
    });
  });

  it("uploads that keep failing leave the outputs on disk, unrecorded as published, the run failed with the command that mends it", async () => {
    const front = await startFaultyFront(s3.endpoint, Number.MAX_SAFE_INTEGER);
    try {
      await withRun({ seed: "publish-down" }, async (scope) => {
        // Each object is tried for a second or two before it is given up on: two pictures.
        const file = manifest(scope, "mugs", "down", JOBS.split("\n  - id: clip")[0]);
        const result = await gw(scope, ["run", file], {
          ...s3.env,
          AWS_ENDPOINT_URL_S3: front.endpoint,
        });
        expect(result.code).toBe(1);
        expect(result.stderr).toContain("2 outputs not published");
        expect(result.stderr).toContain("gwrun publish 1");
        const store = await scope.open();
        try {
          for (const task of await scope.tasks()) {
            expect(task.state).toBe("done");
            expect(await store.publicationsOf(task.key)).toEqual([]);
            for (const output of task.outputs)
              expect(statSync(output.path as string).size).toBe(output.bytes);
          }
        } finally {
          await store.close();
        }
        const mended = await gw(scope, ["publish", "1"]);
        expect(mended.code, mended.stderr).toBe(0);
        expect(
          (await s3.list("down/")).filter((object) => /\.(png|mp4)$/.test(object.key)),
        ).toHaveLength(2);
      });
    } finally {
      await front.close();
    }
  });
});

async function deleteObject(key: string): Promise<void> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: {
      accessKeyId: s3.env.AWS_ACCESS_KEY_ID as string,
      secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY as string,
    },
  });
  try {
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: key }));
  } finally {
    client.destroy();
  }
}
