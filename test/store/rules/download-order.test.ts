import { afterEach, describe, expect, it } from "vitest";
import { deadlineFirst } from "../../../src/engine/download.js";
import type { PgStore } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { DOWNLOAD_ORDER_CASES, type DownloadOrderCase } from "./download-order.cases.js";

/** One table of which download goes first, run through one process's rule and the fleet's. */

afterEach(closeFleetStores);

/** The keys as one process's queue starts them: higher priority first, ties as queued. */
function inOneProcess(tasks: DownloadOrderCase["tasks"]): string[] {
  const now = Date.UTC(2026, 10, 29, 12, 0, 20);
  return Object.entries(tasks)
    .map(([key, links]) => ({
      key,
      priority: deadlineFirst(
        links.map((ms) => (ms === null ? null : now + ms)),
        now,
      ),
    }))
    .sort((a, b) => b.priority - a.priority)
    .map(({ key }) => key);
}

/** The keys as a fleet's queue starts them: lower priority first, ties as queued. */
async function inAFleet(tasks: DownloadOrderCase["tasks"]): Promise<string[]> {
  const keys = Object.keys(tasks);
  const { stores } = await fleet(1, keys.length);
  const { pool } = stores[0] as PgStore;
  const now = Number(
    (await pool.query("SELECT EXTRACT(EPOCH FROM gwrun_now()) * 1000 AS now")).rows[0].now,
  );
  const links = Object.values(tasks).flatMap((expiries, task) =>
    expiries.map((ms, idx) => [`k${String(task).padStart(3, "0")}`, idx, ms]),
  );
  for (const [key, idx, ms] of links)
    await pool.query(
      "INSERT INTO outputs (job_key, idx, url, expires_at, state) VALUES ($1, $2, 'u', $3, 'pending')",
      [key, idx, ms === null ? null : Math.round(now + (ms as number))],
    );
  const { rows } = await pool.query<{ key: string }>(
    "SELECT key FROM jobs ORDER BY gwrun_download_priority(key), key",
  );
  return rows.map((row) => keys[Number(row.key.slice(1))] as string);
}

describe("which download goes first", () => {
  it.each(DOWNLOAD_ORDER_CASES)("in one process: $name", ({ tasks, order }) => {
    expect(inOneProcess(tasks)).toEqual(order);
  });

  it.each(DOWNLOAD_ORDER_CASES)("in a fleet: $name", async ({ tasks, order }) => {
    expect(await inAFleet(tasks)).toEqual(order);
  });
});
