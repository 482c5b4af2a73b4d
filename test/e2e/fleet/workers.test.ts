import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  exitsWithin,
  fleetManifest,
  runEnded,
  statesOf,
  submittingBy,
  waitFor,
  withFleet,
  workerRows,
} from "../../helpers/fleet.js";

/**
 * `gwrun worker` processes working a run recorded with `gwrun run --detach`, against a
 * standalone `gwrun sim`, as a user runs a fleet: what they share, how they stop, and when
 * they refuse to start.
 */

describe("gwrun worker", () => {
  it("shares a detached run between two workers, pays each task once, and stops cleanly on SIGTERM", async () => {
    await withFleet({}, async (fleet) => {
      // A pace slow enough that both workers are up before the submits are done; tasks enough
      // that their submit jobs carry two each.
      const manifest = fleet.write(
        "fleet.yaml",
        fleetManifest(fleet.outputDir, 130, { submitRate: "40/s" }),
      );
      const recorded = await fleet.record(manifest);
      expect(recorded.code).toBe(0);
      expect(recorded.stdout).toMatch(/run 1 recorded/);
      const a = fleet.worker(["--name", "a"]);
      const b = fleet.worker(["--name", "b"]);

      expect(await runEnded(fleet.db)).toBe("done");
      expect(await statesOf(fleet.db)).toEqual({ done: 130 });
      const { rows: outputs } = await fleet.db.query<{ path: string }>(
        "SELECT path FROM outputs WHERE state = 'downloaded'",
      );
      expect(outputs).toHaveLength(130);
      for (const output of outputs)
        expect(existsSync(path.resolve(fleet.dir, output.path))).toBe(true);
      const counters = await fleet.counters();
      expect(counters.submits.accepted).toBe(130);
      expect(counters.submits.repeated).toBe(0);
      const { rows: shares } = await fleet.db.query<{ submitted_by: string; n: number }>(
        "SELECT submitted_by, count(*)::int AS n FROM jobs GROUP BY submitted_by",
      );
      expect(shares.map((share) => share.submitted_by).sort()).toEqual([a.id, b.id].sort());

      const status = await fleet.gwrun(["status"]);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/run 1: fleet — done \(exit 0\)/);
      expect(status.stdout).toMatch(/130 tasks: 130 done/);

      a.child.kill("SIGTERM");
      b.child.kill("SIGTERM");
      for (const worker of [a, b]) {
        const stopped = await exitsWithin(worker, 15_000);
        expect(stopped.code).toBe(0);
        expect(stopped.stderr).toMatch(/stopping: no new claims/);
      }
      const workers = await workerRows(fleet.db);
      for (const worker of [a, b]) {
        expect(workers.get(worker.id)?.stopped_at).toBeInstanceOf(Date);
        expect(workers.get(worker.id)?.dead_at).toBeNull();
      }
    });
  }, 90_000);

  it("two workers share a run in submit jobs of ten and download jobs of several, each task sent once and each file fetched once", async () => {
    // 640 tasks: submit jobs of ten (claimed together), poll rounds of up to fifty completions
    // (download jobs of several), at a pace that keeps both workers at work.
    await withFleet({ latencySeconds: { image: 0.3 } }, async (fleet) => {
      const manifest = fleet.write(
        "fleet.yaml",
        fleetManifest(fleet.outputDir, 640, { submitRate: "400/s" }),
      );
      expect((await fleet.record(manifest)).code).toBe(0);
      const workers = [fleet.worker(["--name", "a"]), fleet.worker(["--name", "b"])];
      expect(await runEnded(fleet.db, 150_000)).toBe("done");
      expect(await statesOf(fleet.db)).toEqual({ done: 640 });
      const counters = await fleet.counters();
      expect(counters.submits.accepted).toBe(640);
      expect(counters.submits.repeated).toBe(0);
      expect(counters.downloads.served).toBe(640);
      const { rows: outputs } = await fleet.db.query<{ path: string }>(
        "SELECT DISTINCT path FROM outputs WHERE state = 'downloaded'",
      );
      expect(outputs).toHaveLength(640);
      for (const output of outputs)
        expect(existsSync(path.resolve(fleet.dir, output.path))).toBe(true);
      const { rows: stillClaimed } = await fleet.db.query(
        "SELECT key FROM jobs WHERE claimed_by IS NOT NULL OR unknown_submits > 0",
      );
      expect(stillClaimed).toEqual([]);
      for (const worker of workers) worker.child.kill("SIGTERM");
      for (const worker of workers) expect((await exitsWithin(worker, 15_000)).code).toBe(0);
    });
  }, 180_000);

  it("lets the submits under way record when a worker is stopped mid-run, and another finishes the run", async () => {
    // The gateway's rate limit keeps claims in flight while the submits wait their turn.
    await withFleet({ rateLimit: { perSecond: 4, burst: 1 } }, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest(fleet.outputDir, 20));
      expect((await fleet.record(manifest)).code).toBe(0);
      const first = fleet.worker(["--name", "first"]);
      const held = await waitFor("the first worker to hold claims", async () => {
        const { rows } = await fleet.db.query<{ key: string }>(
          "SELECT key FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
          [first.id],
        );
        return rows.length > 0 ? rows : undefined;
      });
      first.child.kill("SIGTERM");
      const stopped = await exitsWithin(first, 30_000);
      expect(stopped.code).toBe(0);
      expect(await submittingBy(fleet.db, first.id)).toBe(0);
      // What it was submitting when told to stop was recorded as its own, not dropped.
      const { rows: recorded } = await fleet.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE key = ANY($1::text[]) AND submitted_by = $2",
        [held.map((task) => task.key), first.id],
      );
      expect(recorded[0]?.n).toBe(held.length);
      expect((await workerRows(fleet.db)).get(first.id)?.stopped_at).toBeInstanceOf(Date);
      expect(await statesOf(fleet.db)).not.toEqual({ done: 20 });

      const second = fleet.worker(["--name", "second"]);
      expect(await runEnded(fleet.db)).toBe("done");
      expect(await statesOf(fleet.db)).toEqual({ done: 20 });
      const counters = await fleet.counters();
      expect(counters.submits.repeated).toBe(0);
      expect(counters.submits.accepted).toBe(20);
      second.child.kill("SIGTERM");
      expect((await exitsWithin(second, 15_000)).code).toBe(0);
    });
  }, 90_000);

  it("leaves a run against the built-in simulator to the process that holds it", async () => {
    await withFleet({}, async (fleet) => {
      const other = fleet.worker(["--name", "other"]);
      await waitFor("the other worker", async () =>
        (await workerRows(fleet.db)).has(other.id) ? true : undefined,
      );
      const manifest = fleet.write("local.yaml", fleetManifest(fleet.outputDir, 10));
      const run = await fleet.gwrun(["run", manifest, "--base-url", "sim"]);
      expect(run.code).toBe(0);
      expect(await statesOf(fleet.db)).toEqual({ done: 10 });
      // Only `gwrun run` can reach its simulator: the other worker submitted nothing.
      const { rows } = await fleet.db.query<{ submitted_by: string }>(
        "SELECT DISTINCT submitted_by FROM jobs",
      );
      expect(rows.map((row) => row.submitted_by)).not.toContain(other.id);
      expect(rows).toHaveLength(1);
      // Its engine worked it alone: no job was queued under a name of its own.
      const { rows: runs } = await fleet.db.query<{ worked_alone: boolean }>(
        "SELECT worked_alone FROM runs",
      );
      expect(runs).toEqual([{ worked_alone: true }]);
      const { rows: tasks } = await fleet.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (
           SELECT identifier FROM graphile_worker._private_tasks WHERE identifier <> 'gwrun_submit'
           UNION ALL SELECT identifier FROM graphile_worker_downloads._private_tasks
           WHERE identifier <> 'gwrun_download') named`,
      );
      expect(tasks).toEqual([{ n: 0 }]);
    });
  }, 90_000);

  it("refuses to work a run whose shared output folder it cannot see, saying which and what to do", async () => {
    await withFleet({}, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest(fleet.outputDir, 10));
      expect((await fleet.record(manifest)).code).toBe(0);
      const marker = path.join(fleet.outputDir, ".gwrun-store");
      expect(existsSync(marker)).toBe(true);

      // As on a host where the shared folder is not mounted.
      rmSync(marker);
      const unseen = await exitsWithin(fleet.worker(["--name", "unmounted"]), 30_000);
      expect(unseen.code).toBe(2);
      expect(unseen.stderr).toContain(
        `this host cannot see the shared output folder ${fleet.outputDir} (no ${marker})`,
      );
      expect(unseen.stderr).toMatch(/start the worker in the project folder/);

      // As on a host where that path holds another store's outputs.
      writeFileSync(marker, `${JSON.stringify({ store: "another-store" })}\n`);
      const other = await exitsWithin(fleet.worker(["--name", "elsewhere"]), 30_000);
      expect(other.code).toBe(2);
      expect(other.stderr).toContain(
        `${fleet.outputDir} on this host belongs to another gwrun store (.gwrun-store says another-store)`,
      );

      // Nothing was claimed or sent.
      expect(await statesOf(fleet.db)).toEqual({ pending: 10 });
      expect((await fleet.counters()).submits.received).toBe(0);
    });
  }, 90_000);
});
