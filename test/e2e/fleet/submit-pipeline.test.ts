import { describe, expect, it } from "vitest";
import { fleetManifest, runEnded, statesOf, waitFor, withFleet } from "../../helpers/fleet.js";

/**
 * A worker's submit job sends its tasks one after another, and records each answer while it
 * sends the next: the receipts of several go in one statement. Here the store holds back
 * every receipt (a trigger waits on a lock the test holds) while one worker works one job.
 */

const LOCK = 4242;
/** Pictures enough for submit jobs of four (one per 64 tasks, up to ten: sql/pg/000014). */
const TASKS = 256;

async function submitsWhileReceiptsWait(hold: boolean): Promise<number> {
  return withFleet({}, async (fleet) => {
    await fleet.db.query(`CREATE FUNCTION test_receipts_wait() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN PERFORM pg_advisory_xact_lock(${LOCK}); RETURN NEW; END $$`);
    await fleet.db.query(`CREATE TRIGGER test_receipts_wait BEFORE UPDATE ON jobs FOR EACH ROW
      WHEN (OLD.state = 'submitting' AND NEW.state IN ('submitted', 'processing'))
      EXECUTE FUNCTION test_receipts_wait()`);
    const holder = await fleet.db.connect();
    let accepted: number;
    try {
      await holder.query("SELECT pg_advisory_lock($1)", [LOCK]);
      let manifest = fleetManifest(fleet.outputDir, TASKS);
      if (hold) manifest = manifest.replace("retry: {", "retry: { on_unknown_submit: hold,");
      expect((await fleet.record(fleet.write("fleet.yaml", manifest))).code).toBe(0);
      fleet.worker(["--name", "a", "--concurrency", "1"]);
      await waitFor("a first submit", async () =>
        (await fleet.counters()).submits.accepted > 0 ? true : undefined,
      );
      // Long enough for several more sends, were the job not waiting for its receipts.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      accepted = (await fleet.counters()).submits.accepted;
    } finally {
      await holder.query("SELECT pg_advisory_unlock($1)", [LOCK]);
      holder.release();
    }
    // Once the store records again, every task is paid once and done.
    expect(await runEnded(fleet.db)).toBe("done");
    const { done, ...others } = await statesOf(fleet.db);
    expect(others).toEqual({});
    expect(done).toBeGreaterThanOrEqual(TASKS);
    const counters = await fleet.counters();
    expect(counters.submits.accepted).toBe(done);
    expect(counters.submits.repeated).toBe(0);
    return accepted;
  });
}

describe("a worker's submit job", () => {
  it("sends its next task while the one before is recorded, and no further until that one is", async () => {
    expect(await submitsWhileReceiptsWait(false)).toBe(2);
  });

  it("in a run that holds unknown submits, sends each task only once the one before is recorded", async () => {
    expect(await submitsWhileReceiptsWait(true)).toBe(1);
  });
});
