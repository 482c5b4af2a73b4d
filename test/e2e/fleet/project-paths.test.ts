import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunAsync } from "../../helpers/cli.js";
import { fleetManifest, runEnded, statesOf, withFleet } from "../../helpers/fleet.js";
import { tempDir } from "../../helpers/manifest.js";

/**
 * The store keeps paths relative to the project: a worker finds a run's shared folder in its
 * own project folder (mounted anywhere), or where the run was recorded (mounted at the same
 * path, a worker started elsewhere).
 */
describe("fleet workers and the project folder", () => {
  it("a run recorded through one mount point is worked by a worker in the project under another", async () => {
    await withFleet({}, async (fleet) => {
      // Recorded through another path to the same folder, as another host mounts the share.
      const mount = path.join(tempDir(), "mnt", "share");
      mkdirSync(path.dirname(mount), { recursive: true });
      symlinkSync(fleet.dir, mount);
      fleet.write("fleet.yaml", fleetManifest("out", 12));
      expect((await fleet.record(path.join(mount, "fleet.yaml"))).code).toBe(0);
      const { rows: runs } = await fleet.db.query<{ project_dir: string; output_dir: string }>(
        "SELECT project_dir, output_dir FROM runs",
      );
      expect(runs).toEqual([{ project_dir: mount, output_dir: "out" }]);
      // That mount is gone on the worker's host: the worker finds the share in its project.
      rmSync(mount);
      const worker = gwrunAsync(["worker", "--name", "in-the-project"], {
        cwd: fleet.dir,
        env: { GWRUN_STORE: fleet.url, GW_API_KEY: "test-key" },
      });
      try {
        expect(await runEnded(fleet.db)).toBe("done");
      } finally {
        worker.child.kill("SIGTERM");
        await worker.done;
      }
      expect(Object.keys(await statesOf(fleet.db))).toEqual(["done"]);
      const { rows } = await fleet.db.query<{ path: string }>("SELECT path FROM outputs");
      for (const { path: file } of rows) {
        expect(file.startsWith("out/")).toBe(true);
        expect(existsSync(path.join(fleet.dir, file))).toBe(true);
      }
      expect(existsSync(mount)).toBe(false);
    });
  }, 120_000);

  it("a worker started outside any project works a run at the path it was recorded in, and makes its renditions as the run ends", async () => {
    await withFleet({}, async (fleet) => {
      const manifest = fleet.write(
        "fleet.yaml",
        fleetManifest("out", 8).replace(
          'output: { dir: "out" }',
          'output: { dir: "out", renditions: [{ name: small, width: 64, height: 48, fit: cover, format: jpeg }] }',
        ),
      );
      expect((await fleet.record(manifest)).code).toBe(0);
      const worker = gwrunAsync(["worker", "--name", "unit-without-a-folder"], {
        cwd: tempDir(),
        env: { GWRUN_STORE: fleet.url, GW_API_KEY: "test-key" },
      });
      try {
        expect(await runEnded(fleet.db)).toBe("done");
      } finally {
        worker.child.kill("SIGTERM");
        await worker.done;
      }
      expect(Object.keys(await statesOf(fleet.db))).toEqual(["done"]);
      expect(existsSync(path.join(fleet.dir, "out", "index.html"))).toBe(true);
      // The settling worker read `output.renditions` from the run's recorded manifest.
      const { rows } = await fleet.db.query<{ path: string }>("SELECT path FROM outputs");
      expect(rows.length).toBeGreaterThan(0);
      for (const { path: file } of rows) {
        const output = path.join(fleet.dir, file);
        const { renditions } = JSON.parse(readFileSync(`${output}.json`, "utf8")) as {
          renditions?: {
            name: string;
            file: string;
            width: number;
            height: number;
            sha256: string;
          }[];
        };
        expect(renditions?.map(({ name, width, height }) => ({ name, width, height }))).toEqual([
          { name: "small", width: 64, height: 48 },
        ]);
        const made = readFileSync(path.join(path.dirname(output), renditions?.[0]?.file as string));
        expect(createHash("sha256").update(made).digest("hex")).toBe(renditions?.[0]?.sha256);
      }
    });
  }, 120_000);
});
