import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { PgStore, TaskRow } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { lockWaiters, until } from "../../helpers/until.js";

/**
 * A run's budget across its capacity lanes: a claim of pictures and one of clips take locks
 * of their own lanes, and each still counts what the other reserved.
 */

afterEach(closeFleetStores);

describe("a fleet's claims within a run's budget", () => {
  it("holds max_cost when a picture claim and a clip claim of one run overlap", async () => {
    const { stores, rows, url, runId } = await fleet(2, 6, 0.3);
    const [, b] = stores as [PgStore, PgStore];
    const clips = rows.slice(3).map((row) => row.key);
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      await sql.query("UPDATE jobs SET lane = 'video' WHERE key = ANY($1)", [clips]);
      const videos = (await b.tasksOf(runId)).filter((row) => row.lane === "video");
      // Three pictures claimed (0.9 of a budget of 1), not yet committed.
      await sql.query("BEGIN");
      const pictures = await sql.query(
        `SELECT outcome FROM gwrun_claim_tasks($1, $2, '{image,text}', 100, 1, 0,
           '{0.3,0.3,0.3}', 'a', '{1,1,1}', 2)`,
        [rows.slice(0, 3).map((row) => row.key), runId],
      );
      expect(pictures.rows.map((row) => row.outcome)).toEqual(["claimed", "claimed", "claimed"]);
      let settled = false;
      const clipClaims = b.fleet
        .claimTasksWithin(videos as TaskRow[], "b", { cap: 100, maxCost: 1, unknownCost: 0 }, 3)
        .finally(() => {
          settled = true;
        });
      // The clips' claim waits for the pictures' to commit, to count what they reserved.
      await until("the clips' claim to wait for a lock", async () => (await lockWaiters(sql)) > 0);
      expect(settled).toBe(false);
      await sql.query("COMMIT");
      const outcomes = (await clipClaims).map((claim) =>
        "claimed" in claim ? "claimed" : claim.refused,
      );
      expect(outcomes).toEqual(["budget", "budget", "budget"]);
      const claimed = await sql.query(
        "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting'",
      );
      expect(claimed.rows[0].n).toBe(3);
    } finally {
      await sql.end();
    }
  });
});
