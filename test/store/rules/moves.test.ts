import { afterEach, describe, expect, it } from "vitest";
import { type Placement, placementOf } from "../../../src/plan/index.js";
import { type PgStore, TaskState } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { taskRow } from "../../helpers/task-row.js";
import { MOVE_CASES, type MoveCase } from "./moves.cases.js";

/** One table of what a task's arrival in a state asks for next, in one process and in a fleet. */

afterEach(closeFleetStores);

const NEXT_OF: Record<Placement, MoveCase["next"] | undefined> = {
  queue: "submit",
  poll: "poll",
  download: "download",
  check: "check",
  done: "nothing",
  leave: "nothing",
  // Placements of a recorded task that are moves of their own, not arrivals.
  "release-unknown": undefined,
  deliver: undefined,
  recheck: undefined,
  redownload: undefined,
  redo: undefined,
};

/** What one process does with a task it finds in the state: its files intact, its claim alive. */
function inOneProcess({ to }: MoveCase): MoveCase["next"] | undefined {
  const placement = placementOf(taskRow({ state: to as TaskState }), {
    force: false,
    claimAlive: true,
    filesIntact: true,
    toDeliver: false,
    reviewImagesGone: false,
    linksLive: true,
  });
  return NEXT_OF[placement];
}

/** What a fleet's store queues as the task moves, or whether its poll leader reads it. */
async function inAFleet({ from, to, sameJob }: MoveCase): Promise<string> {
  const { stores, rows, runId } = await fleet(1, 1);
  const { pool, fleet: fleetStore } = stores[0] as PgStore;
  const key = rows[0]?.key as string;
  if (from !== undefined) {
    await pool.query("UPDATE jobs SET state = $2 WHERE key = $1", [key, from]);
    await pool.query("DELETE FROM graphile_worker._private_jobs");
    await pool.query("DELETE FROM graphile_worker_downloads._private_jobs");
    await pool.query("UPDATE jobs SET state = $2 WHERE key = $1", [key, to]);
  }
  const queued = async (list: string) =>
    (await pool.query(`SELECT k FROM ${list}() k WHERE k = $1`, [key])).rows.length > 0;
  const submit = await queued("gwrun_queued_submits");
  const download = await queued("gwrun_queued_downloads");
  const polled = (await fleetStore.heldByGateway([runId])).some((task) => task.key === key);
  const next = submit ? "submit" : download ? "download" : polled ? "poll" : "nothing";
  if (sameJob) return next === "nothing" ? "same job" : next;
  // A fleet's download job checks what is downloaded, and downloads nothing already there.
  return next === "download" && to === TaskState.Downloaded ? "check" : next;
}

describe("what a task's arrival in a state asks for next", () => {
  it.each(MOVE_CASES)("in one process: $name", (move) => {
    expect(inOneProcess(move)).toBe(move.next);
  });

  it.each(MOVE_CASES)("in a fleet: $name", async (move) => {
    expect(await inAFleet(move)).toBe(move.sameJob ? "same job" : move.next);
  });
});
