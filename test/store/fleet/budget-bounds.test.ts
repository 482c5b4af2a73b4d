import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { PgStore, TaskRow } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { lockWaiters, until } from "../../helpers/until.js";

/**
 * A fleet's claims within a budget read a bound kept for the run (sql/pg/000029, 000030), not every
 * task: at least what is spent plus what is reserved. What raises a run's spend outside a
 * claim must reach the bound, or a claim would reserve past max_cost; what lowers it must not
 * hold a claim back once counted.
 */

afterEach(closeFleetStores);

const BUDGET = { cap: 100, maxCost: 1, unknownCost: 0 };

async function budgetedFleet(tasks: number) {
  const { stores, rows, url, runId } = await fleet(1, tasks, 0.1);
  const [store] = stores as [PgStore];
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  opened.push(sql);
  const claim = async (some: TaskRow[], now: number) =>
    (await store.fleet.claimTasksWithin(some, "w@h", BUDGET, now)).map((one) =>
      "claimed" in one ? "claimed" : one.refused,
    );
  return { rows, sql, claim, runId, url, store };
}

const opened: pg.Client[] = [];

async function connected(url: string): Promise<pg.Client> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  opened.push(sql);
  return sql;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((sql) => sql.end()));
});

describe("a run's budget kept as a bound for the fleet's claims", () => {
  it("counts costs above their estimates, and a failed task polled again, at the next claim", async () => {
    const { rows, sql, claim } = await budgetedFleet(10);
    expect(await claim(rows.slice(0, 4), 2)).toEqual(["claimed", "claimed", "claimed", "claimed"]);
    // The gateway charged 0.18 for each (estimated 0.1): 0.72 is spent.
    await sql.query("UPDATE jobs SET state = 'completed', cost = 0.18 WHERE key = ANY($1)", [
      rows.slice(0, 4).map((row) => row.key),
    ]);
    // A failed task polled again (`repollOf`) is in flight without a claim: 0.1 reserved.
    await sql.query("UPDATE jobs SET state = 'failed', reason = 'lost' WHERE key = $1", [
      rows[4]?.key,
    ]);
    await sql.query(
      "UPDATE jobs SET state = 'submitted', reason = NULL, next_poll_at = 3, submitted_at = 3 WHERE key = $1",
      [rows[4]?.key],
    );
    // 0.82 + 0.1 fits; a second would make 1.02.
    expect(await claim(rows.slice(5, 8), 3)).toEqual(["claimed", "budget", "budget"]);
    const spent = await sql.query(
      "SELECT sum(COALESCE(cost, estimated_cost))::float8 AS spent FROM jobs WHERE state <> 'pending'",
    );
    expect(spent.rows[0].spent).toBeCloseTo(0.92, 9);
  });

  it("adds a cost recorded while a claim is under way to what that claim keeps", async () => {
    const { rows, runId, url } = await budgetedFleet(4);
    const [first, , third, fourth] = rows.map((row) => row.key);
    const [claimer, holder, poller] = (await Promise.all([1, 2, 3].map(() => connected(url)))) as [
      pg.Client,
      pg.Client,
      pg.Client,
    ];
    const claim = (keys: (string | undefined)[]) =>
      claimer.query(
        `SELECT outcome FROM gwrun_claim_tasks($1, $2, '{image,text}', 100, 1, 0, $3, 'w@h', $4, 3)`,
        [keys, runId, keys.map(() => 0.1), keys.map(() => 1)],
      );
    await claim([first]);
    // A claim of two, held midway: it read the bound (0.1), then waits for the fourth task.
    await holder.query("BEGIN");
    await holder.query("SELECT 1 FROM jobs WHERE key = $1 FOR UPDATE", [fourth]);
    const claiming = claim([third, fourth]);
    await until(
      "the claim to wait for the fourth task",
      async () => (await lockWaiters(holder)) >= 1,
    );
    // Meanwhile the poll round records 0.35 for the first task (estimated 0.1).
    const recorded = poller.query(
      "UPDATE jobs SET state = 'completed', cost = 0.35 WHERE key = $1",
      [first],
    );
    await until(
      "the poll round to wait for the claim",
      async () => (await lockWaiters(holder)) >= 2,
    );
    await holder.query("COMMIT");
    expect((await claiming).rows.map((row) => row.outcome)).toEqual(["claimed", "claimed"]);
    await recorded;
    // 0.35 + two in flight: the rise waited for the claim, and landed on what it kept.
    const bound = await poller.query("SELECT bound FROM run_spend_bounds");
    expect(bound.rows[0].bound).toBeCloseTo(0.55, 9);
  });

  it("gives back what failed tasks reserved, counted once the bound would refuse", async () => {
    const { rows, sql, claim } = await budgetedFleet(15);
    const first = rows.slice(0, 10);
    expect(await claim(first, 2)).toEqual(first.map(() => "claimed"));
    await sql.query("UPDATE jobs SET state = 'failed' WHERE key = ANY($1)", [
      first.slice(0, 4).map((row) => row.key),
    ]);
    // The bound still says 1.0; counted, 0.6 is reserved, and four more fit.
    expect(await claim(rows.slice(10, 15), 3)).toEqual([
      "claimed",
      "claimed",
      "claimed",
      "claimed",
      "budget",
    ]);
  });

  it("forgets a bound kept while the run had a budget once its claims have none", async () => {
    const { rows, sql, claim, runId } = await budgetedFleet(8);
    expect(await claim(rows.slice(0, 2), 2)).toEqual(["claimed", "claimed"]);
    await sql.query(
      `SELECT * FROM gwrun_claim_tasks($1, $2, '{image,text}', 100, NULL, 0,
         '{0.1,0.1,0.1,0.1,0.1}', 'w@h', '{1,1,1,1,1}', 3)`,
      [rows.slice(2, 7).map((row) => row.key), runId],
    );
    // Seven in flight (0.7), none of the last five counted in the old bound (0.2).
    expect(await claim(rows.slice(7, 8), 4)).toEqual(["claimed"]);
    const bound = await sql.query("SELECT bound FROM run_spend_bounds");
    expect(bound.rows[0].bound).toBeCloseTo(0.8, 9);
  });

  it("reads none of the run's spent tasks while the bound allows, and counts them by index", async () => {
    const { rows, sql, runId } = await budgetedFleet(3);
    const [first, second, third] = rows.map((row) => row.key) as [string, string, string];
    const plans: string[] = [];
    sql.on("notice", (notice) => plans.push(notice.message ?? ""));
    const claimOn = async (key: string) => {
      plans.length = 0;
      const result = await sql.query(
        `SELECT outcome FROM gwrun_claim_tasks($1, $2, '{image,text}', 100, 1, 0, '{0.1}',
           'w@h', '{1}', 3)`,
        [[key], runId],
      );
      return { outcome: result.rows[0]?.outcome, plans: plans.join("\n") };
    };
    // No bound yet: this claim counts, and the count's plan is made while the run has three tasks.
    expect((await claimOn(first)).outcome).toBe("claimed");
    await sql.query(
      `INSERT INTO jobs (key, run_id, job_id, label, lane, endpoint, state, cost,
         estimated_cost, created_at, updated_at)
       SELECT 'grown-' || n, run_id, job_id, 'grown ' || n, lane, endpoint, 'done',
         0.0001, 0.0001, 1, 1
       FROM jobs CROSS JOIN generate_series(1, 3000) AS n WHERE key = $1`,
      [first],
    );
    await sql.query("ANALYZE jobs");
    await sql.query("LOAD 'auto_explain'");
    await sql.query(
      "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
    );
    // 0.1 in flight + 0.3 of the tasks inserted done (the trigger raised the bound) + 0.1.
    const allowed = await claimOn(second);
    expect(allowed.outcome).toBe("claimed");
    expect(allowed.plans).toMatch(/run_spend_bounds/);
    expect(allowed.plans).not.toMatch(/jobs_spent|Seq Scan on jobs/);
    // A bound that would refuse is counted first, by index, and the claim goes on.
    await sql.query("UPDATE run_spend_bounds SET bound = 0.95");
    const counted = await claimOn(third);
    expect(counted.outcome).toBe("claimed");
    expect(counted.plans).toMatch(/Index (Only )?Scan using jobs_spent/);
    expect(counted.plans).not.toMatch(/Seq Scan on jobs/);
    const bound = await sql.query("SELECT bound FROM run_spend_bounds");
    expect(bound.rows[0].bound).toBeCloseTo(0.6, 9);
  });

  it("counts each submit of unknown outcome at its task's reservation: a held task, and a receipt after unknown tries", async () => {
    const { rows, sql, claim, store } = await budgetedFleet(20);
    const claimed = async (some: TaskRow[], now: number) => {
      expect(await claim(some, now)).toEqual(some.map(() => "claimed"));
      return Promise.all(some.map(async (row) => (await store.task(row.key)) as TaskRow));
    };
    // A receipt after two tries of unknown outcome: 0.1 in flight and 0.2 maybe billed.
    const [first] = await claimed(rows.slice(0, 5), 2);
    const receipt = { taskId: "t-1", status: "submitted" as const, nextPollAt: 9 };
    await store.fleet.recordClaimedReceipts(
      [{ task: first as TaskRow, ...receipt, unknownSubmits: 2 }],
      "w@h",
      3,
    );
    // 0.7 counted by the bound, as the trigger raised it: three more fit, not five.
    expect(await claim(rows.slice(5, 10), 4)).toEqual([
      "claimed",
      "claimed",
      "claimed",
      "budget",
      "budget",
    ]);
    // Held after an unknown submit (0.1, maybe billed) or failed outright (nothing): counted
    // exactly when the bound refuses.
    const [held, alsoHeld, failed, alsoFailed] = (await Promise.all(
      rows.slice(1, 5).map(async (row) => (await store.task(row.key)) as TaskRow),
    )) as [TaskRow, TaskRow, TaskRow, TaskRow];
    for (const task of [held, alsoHeld])
      await store.failTask(task, ["submitting"], "held", "held: reset", 5, { unknownSubmits: 1 });
    for (const task of [failed, alsoFailed])
      await store.failTask(task, ["submitting"], "rejected", "refused", 5);
    // Spent: 0.3 (first) + 0.2 (held) + 0.3 in flight = 0.8; two more fit.
    expect(await claim(rows.slice(8, 11), 6)).toEqual(["claimed", "claimed", "budget"]);
    const counted = await sql.query("SELECT bound FROM run_spend_bounds");
    expect(counted.rows[0].bound).toBeCloseTo(1, 9);
  });
});
