import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gwrunAsync } from "../../helpers/cli.js";
import { runEnded, statesOf, withFleet } from "../../helpers/fleet.js";
import { tempDir } from "../../helpers/manifest.js";
import { type ObjectStore, startObjectStore } from "../../helpers/object-storage.js";

/**
 * A fleet whose outputs are published needs no shared folder. Each host is a
 * folder of its own here; what one made, another finds in the bucket.
 */

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ bucket: "fleet-outputs" });
}, 60_000);
afterAll(async () => {
  await s3?.close();
});

const MANIFEST = (bucket: string) => `version: 1
name: published
limits: { submit_rate: 200/s, max_in_flight: 40, downloads: 4 }
poll: { first_after: 50ms, every: 50ms, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output:
  dir: out
  publish: "s3://${bucket}/fleet"
  renditions:
    - { name: small, width: 64, height: 48, fit: cover, format: jpeg }
    - { name: small-clip, width: 64, height: 48, fit: cover, format: mp4 }
jobs:
  - id: mug
    model: acme-image-2
    size: "256x256"
    matrix: { glaze: [red, blue, green, white, black, grey, teal, amber] }
    prompt: "a {{glaze}} ceramic mug"
  - id: clip
    model: acme-video-2.3-Fast
    from: mug
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
`;

/** A host: a project folder of its own with the manifest in it. */
function host(bucket: string): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, "published.yaml"), MANIFEST(bucket));
  return dir;
}

/** The outputs in a host's folder (not their renditions). */
function outputsUnder(dir: string): string[] {
  try {
    return readdirSync(path.join(dir, "out"), { recursive: true })
      .map(String)
      .filter((name) => /\.(png|mp4)$/.test(name) && !name.includes(`renditions${path.sep}`));
  } catch {
    return [];
  }
}

/**
 * The renditions the outputs' sidecars list (a picture's `small`, a clip's `small-clip`), each
 * checked on its host's disk and in the bucket with the sha256 listed; how many.
 */
async function renditionsListed(hosts: readonly string[]): Promise<number> {
  let rendered = 0;
  for (const dir of hosts)
    for (const name of outputsUnder(dir)) {
      const output = path.join(dir, "out", name);
      const { renditions = [] } = JSON.parse(readFileSync(`${output}.json`, "utf8")) as {
        renditions?: { name: string; file: string; sha256: string }[];
      };
      for (const rendition of renditions) {
        expect(rendition.name).toBe(name.endsWith(".png") ? "small" : "small-clip");
        const file = path.join(path.dirname(output), rendition.file);
        const key = `fleet/${path.relative(path.join(dir, "out"), file).split(path.sep).join("/")}`;
        const { body } = await s3.get(key);
        expect(body.equals(readFileSync(file))).toBe(true);
        expect(createHash("sha256").update(body).digest("hex")).toBe(rendition.sha256);
        rendered += 1;
      }
    }
  return rendered;
}

describe("a fleet without a shared folder", () => {
  it("two workers with folders of their own publish every output once; plan on either host finds nothing new; gwrun view in a third folder serves an output from the bucket", async () => {
    await withFleet({}, async (fleet) => {
      const env = { GW_API_KEY: "test-key", GWRUN_STORE: fleet.url, ...s3.env };
      const cli = (args: string[], cwd: string) => gwrunAsync(args, { cwd, env });
      const recorder = host(s3.bucket);
      const recorded = await cli(
        ["run", "published.yaml", "--detach", "--base-url", fleet.simUrl],
        recorder,
      ).done;
      expect(recorded.code, recorded.stderr).toBe(0);
      const hosts = [host(s3.bucket), host(s3.bucket)];
      const workers = hosts.map((dir) => cli(["worker"], dir));
      try {
        expect(await runEnded(fleet.db, 90_000)).toBe("done");
      } finally {
        for (const worker of workers) worker.child.kill("SIGTERM");
        for (const worker of workers) await worker.done;
      }
      expect(await statesOf(fleet.db)).toEqual({ done: 16 });
      // Renditions are made by whichever host settles the run, of the outputs on its disk: the
      // other host's are not its to make, and no problem.
      const said = (await Promise.all(workers.map((worker) => worker.done))).map(
        (ended) => ended.stderr,
      );
      for (const stderr of said)
        expect(stderr).not.toMatch(/no renditions|not the file downloaded/);
      const rendered = await renditionsListed(hosts);
      const told = said.join("\n").match(/renditions: (\d+) made/);
      expect(rendered).toBeGreaterThanOrEqual(Number(told?.[1] ?? 0));
      // No marker of a shared folder, and no folder in the recording host.
      expect(outputsUnder(recorder)).toEqual([]);
      // Each output was downloaded by one host, into that host's own folder.
      const made = hosts.flatMap(outputsUnder);
      expect(new Set(made).size).toBe(made.length);
      expect(made).toHaveLength(16);
      // Every output is in the bucket once, under the name the store gave it.
      const { rows } = await fleet.db.query<{ path: string }>("SELECT path FROM outputs");
      const objects = (await s3.list("fleet/"))
        .map((object) => object.key.slice("fleet/".length))
        .filter((key) => /\.(png|mp4)$/.test(key) && !key.includes("/renditions/"));
      expect(objects.sort()).toEqual(rows.map((row) => row.path.replace(/^out\//, "")).sort());
      expect((await s3.list("fleet/")).map((object) => object.key)).toContain(
        "fleet/results.jsonl",
      );
      // Either host plans nothing new: what the other made is published.
      for (const dir of hosts) {
        const plan = await cli(["plan", "published.yaml", "--json"], dir).done;
        expect(plan.code, plan.stderr).toBe(0);
        const { totals } = JSON.parse(plan.stdout) as { totals: { status: { new: number } } };
        expect(totals.status.new).toBe(0);
      }
      // A third folder, with none of the files: the viewer reads them from the bucket.
      const third = tempDir();
      const view = cli(["view", "--port", "0"], third);
      try {
        const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
          let seen = "";
          view.child.stdout?.on("data", (chunk: Buffer) => {
            seen += chunk.toString();
            const found = /^(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)$/m.exec(seen);
            if (found !== null) resolve([found[1] as string, found[2] as string]);
          });
          void view.done.then((result) => reject(new Error(`gwrun view exited: ${result.stderr}`)));
        });
        const { rows: first } = await fleet.db.query<{ job_key: string; path: string }>(
          "SELECT job_key, path FROM outputs WHERE path LIKE '%.png' ORDER BY path LIMIT 1",
        );
        const output = first[0] as { job_key: string; path: string };
        // Reading from storage takes the viewer's token; a file on disk does not.
        const unasked = await fetch(`${url}/files/${output.job_key}/0/file`);
        expect(unasked.status).toBe(403);
        const served = await fetch(`${url}/files/${output.job_key}/0/file?token=${token}`);
        expect(served.status).toBe(200);
        expect(served.headers.get("content-type")).toBe("image/png");
        const object = await s3.get(`fleet/${output.path.replace(/^out\//, "")}`);
        expect(Buffer.from(await served.arrayBuffer()).equals(object.body)).toBe(true);
      } finally {
        view.child.kill("SIGINT");
        await view.done;
      }
    });
  }, 240_000);
});
