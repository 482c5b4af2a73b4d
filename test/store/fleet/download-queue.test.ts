import { cpSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { PgStore, TaskRow } from "../../../src/store/index.js";
import { PgDb } from "../../../src/store/postgres/db.js";
import { migrate } from "../../../src/store/postgres/migrate.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";
import { ROOT } from "../../helpers/root.js";

const QUEUED = ["graphile_worker", "graphile_worker_downloads"]
  .map(
    (schema) => `
      SELECT '${schema}' AS queue, t.identifier AS task, q.key, q.payload, q.priority, q.flags,
        q.locked_at IS NOT NULL AS taken
      FROM ${schema}._private_jobs q JOIN ${schema}._private_tasks t ON t.id = q.task_id`,
  )
  .join(" UNION ALL ")
  .concat(" ORDER BY key");

describe("download jobs have a queue of their own", () => {
  it("a store brought up to date moves the download jobs waiting in the shared queue to their own, as they were, and leaves a taken one to finish", async () => {
    const url = await testDatabase();
    // The store as the gwrun before sql/pg/000024 left it.
    const older = tempDir();
    cpSync(path.join(ROOT, "sql/pg"), older, { recursive: true });
    for (const file of readdirSync(older)) if (file >= "000024") rmSync(path.join(older, file));
    const db = new PgDb(url, 1);
    try {
      await migrate(db, pathToFileURL(`${older}/`));
      await db.pool.query(
        `SELECT graphile_worker.add_job('gwrun_submit', '{"key":"s"}', job_key := 'submit:s'),
                graphile_worker.add_job('gwrun_download', '{"key":"a"}', job_key := 'download:a',
                  priority := 5, flags := ARRAY['run:1']),
                graphile_worker.add_job('gwrun_download', '{"keys":["b","c"]}', priority := 30,
                  flags := ARRAY['run:2']),
                graphile_worker.add_job('gwrun_download', '{"key":"d"}', job_key := 'download:d')`,
      );
      await db.pool.query(
        "UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'w' WHERE key = 'download:d'",
      );
      await migrate(db);
      const queued = (await db.pool.query(QUEUED)).rows;
      expect(queued).toEqual([
        expect.objectContaining({
          queue: "graphile_worker_downloads",
          task: "gwrun_download",
          key: "download:a",
          payload: { key: "a" },
          priority: 5,
          flags: { "run:1": true },
          taken: false,
        }),
        expect.objectContaining({
          queue: "graphile_worker",
          task: "gwrun_download",
          key: "download:d",
          taken: true,
        }),
        expect.objectContaining({
          queue: "graphile_worker",
          task: "gwrun_submit",
          key: "submit:s",
          taken: false,
        }),
        expect.objectContaining({
          queue: "graphile_worker_downloads",
          task: "gwrun_download",
          key: null,
          payload: { keys: ["b", "c"] },
          priority: 30,
          flags: { "run:2": true },
          taken: false,
        }),
      ]);
      // What queues a run's work again finds them there: none is queued twice.
      const { rows } = await db.pool.query(
        "SELECT key FROM gwrun_queued_downloads() AS q(key) ORDER BY key",
      );
      expect(rows.map((row) => row.key)).toEqual(["a", "b", "c"]);
    } finally {
      await db.close();
    }
  });

  it("keeps a run unsettled while a download job of it is queued or under way: the task it finishes records its dependants after it is done", async () => {
    const { stores, runId } = await fleet(1, 1);
    const [store] = stores as [PgStore];
    // The run's one task is done; its download job has yet to end.
    await store.pool.query("UPDATE jobs SET state = 'done'");
    await store.pool.query(
      "SELECT graphile_worker_downloads.add_job('gwrun_download', '{\"key\":\"k000\"}', flags := ARRAY[$1])",
      [`run:${runId}`],
    );
    expect(await store.fleet.hasWorkLeft(runId, false)).toBe(true);
    expect(await store.fleet.hasWorkLeft(runId, true)).toBe(true);
    // A worker has it, on its last attempt.
    await store.pool.query(
      "UPDATE graphile_worker_downloads._private_jobs SET locked_at = now(), locked_by = 'w', attempts = max_attempts",
    );
    expect(await store.fleet.hasWorkLeft(runId, false)).toBe(true);
    // It failed for good: it holds nothing back.
    await store.pool.query(
      "UPDATE graphile_worker_downloads._private_jobs SET locked_at = NULL, locked_by = NULL",
    );
    expect(await store.fleet.hasWorkLeft(runId, false)).toBe(false);
    // Another run's job holds nothing back either.
    await store.pool.query("DELETE FROM graphile_worker_downloads._private_jobs");
    await store.pool.query(
      "SELECT graphile_worker_downloads.add_job('gwrun_download', '{\"key\":\"x\"}', flags := ARRAY['run:999'])",
    );
    expect(await store.fleet.hasWorkLeft(runId, false)).toBe(false);
  });
  it("records a completion whose link is dated 50,000 years ahead (an expiry in milliseconds where seconds are due), and queues its download last in line", async () => {
    const { stores, rows } = await fleet(1, 1);
    const [store] = stores as [PgStore];
    const [task] = rows as [TaskRow];
    const now = Date.now();
    const claim = await store.fleet.claimWithin(
      task,
      "w",
      { cap: 5, maxCost: undefined, unknownCost: undefined },
      now,
    );
    if (!("claimed" in claim)) throw new Error("claimed");
    await store.fleet.recordClaimedReceipt(
      {
        task: claim.claimed,
        taskId: "id-far",
        status: "submitted",
        nextPollAt: now,
        unknownSubmits: 0,
      },
      "w",
      now,
    );
    // The gateway said milliseconds where seconds are due: gwrun reads it as seconds.
    const link = { url: "http://gateway.test/x.png", expiresAt: now * 1000 };
    await store.recordPollRound(
      [
        {
          task: { ...claim.claimed, state: "submitted" },
          outcome: { kind: "completed", links: [link], cost: 0.1 },
        },
      ],
      now,
    );
    expect((await store.task(task.key))?.state).toBe("completed");
    const { rows: queued } = await store.pool.query(
      "SELECT key, priority FROM graphile_worker_downloads.jobs",
    );
    expect(queued).toEqual([{ key: `download:${task.key}`, priority: 1440 }]);
  });
});

afterEach(closeFleetStores);
