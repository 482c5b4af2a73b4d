import { describe, expect, it } from "vitest";
import {
  exitsWithin,
  fleetManifest,
  runEnded,
  statesOf,
  waitFor,
  withFleet,
} from "../../helpers/fleet.js";

describe("what a gwrun worker logs per run", () => {
  it("one line when it starts work on a run and one when it ends, with the run's id, name and tasks done and failed", async () => {
    await withFleet({}, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest("out", 6));
      expect((await fleet.record(manifest)).code).toBe(0);
      const worker = fleet.worker(["--name", "w1"]);
      expect(await runEnded(fleet.db)).toBe("done");
      await waitFor("the worker's line for the run's end", async () =>
        worker.stderr().includes("ended work") ? true : undefined,
      );
      worker.child.kill("SIGTERM");
      await worker.done;
      // Every line is the worker's own: nothing a library prints past it.
      const strangers = worker
        .stderr()
        .split("\n")
        .filter((line) => line !== "" && !line.startsWith("gwrun worker w1"));
      expect(strangers).toEqual([]);
      const lines = worker
        .stderr()
        .split("\n")
        .filter((line) => line.includes(": run 1 "));
      expect(lines).toEqual([
        "gwrun worker w1: run 1 fleet: started work",
        `gwrun worker w1: run 1 fleet: ended work, the run done: ${(await statesOf(fleet.db)).done} done, 0 failed`,
      ]);
    });
  }, 120_000);

  it("a worker stopped while its run goes on says it stopped work, with the counts so far, and exits promptly", async () => {
    await withFleet({ latencySeconds: { image: 30 } }, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest("out", 3));
      expect((await fleet.record(manifest)).code).toBe(0);
      const worker = fleet.worker(["--name", "w2"]);
      await waitFor("the worker to start work on run 1", async () =>
        worker.stderr().includes("started work") ? true : undefined,
      );
      worker.child.kill("SIGTERM");
      // Promptly: its queue's connections are closed, not left to time out (10 s).
      await exitsWithin(worker, 5_000);
      expect(worker.stderr()).toMatch(
        /^gwrun worker w2: run 1 fleet: stopped work, the run goes on: 0 done, 0 failed$/m,
      );
    });
  }, 120_000);

  it("says once that the store refuses its poll rounds, keeps the tasks' receipts, and goes on once the store records again", async () => {
    await withFleet({}, async (fleet) => {
      // Every poll round that completes a task fails in the store, as a value out of a
      // column's range once made it fail.
      await fleet.db.query(`CREATE FUNCTION refuse_outputs() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN RAISE EXCEPTION 'integer out of range'; END $$`);
      await fleet.db.query(
        "CREATE TRIGGER refuse_outputs BEFORE INSERT ON outputs FOR EACH ROW EXECUTE FUNCTION refuse_outputs()",
      );
      const manifest = fleet.write("fleet.yaml", fleetManifest("out", 2));
      expect((await fleet.record(manifest)).code).toBe(0);
      const worker = fleet.worker(["--name", "w1"]);
      const said = "gwrun worker w1: the store could not record a poll round: integer out of range";
      await waitFor("the worker to say the store refused a poll round", async () =>
        worker.stderr().includes(said) ? true : undefined,
      );
      // Ten poll rounds later, by the gateway's count, it has still said it once.
      const { queries } = await fleet.counters();
      const rounds = queries.single + queries.batch;
      await waitFor("ten more poll rounds", async () => {
        const now = (await fleet.counters()).queries;
        return now.single + now.batch >= rounds + 10 ? true : undefined;
      });
      expect(
        worker
          .stderr()
          .split("\n")
          .filter((line) => line === said),
      ).toHaveLength(1);
      const { submitted } = await statesOf(fleet.db);
      expect(await statesOf(fleet.db)).toEqual({ submitted });
      await fleet.db.query("DROP TRIGGER refuse_outputs ON outputs");
      expect(await runEnded(fleet.db)).toBe("done");
      // Each paid once.
      expect((await fleet.counters()).submits.accepted).toBe(submitted);
      worker.child.kill("SIGTERM");
      await worker.done;
    });
  }, 120_000);
});
