import { Logger, run } from "graphile-worker";
import { afterEach, describe, expect, it } from "vitest";
import type { FleetStatus } from "../../../src/api/index.js";
import { openPgStore, type PgStore, type TaskRow } from "../../../src/store/index.js";
import { gwrunAsync } from "../../helpers/cli.js";
import { testDatabase } from "../../helpers/postgres.js";
import { imageTask } from "../../helpers/store.js";

/** `gwrun status` on a PostgreSQL store: the fleet working it, as the store records it. */

const GATEWAY = "http://gateway.test";
const NO_BUDGET = { cap: 10, maxCost: undefined, unknownCost: undefined };
const W1 = "1234@host-a";
const W2 = "99@host-b";
const W3 = "7@host-c";

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function recordRun(store: PgStore, name: string, keys: string[]): Promise<TaskRow[]> {
  const runId = await store.createRun({
    name,
    manifest_path: `/${name}.yaml`,
    manifest_text: "version: 1",
    base_url: GATEWAY,
    output_dir: `/out/${name}`,
    started_at: Date.now(),
  });
  await store.recordTasks(
    runId,
    keys.map((key) => ({ ...imageTask(key), label: key })),
    Date.now(),
  );
  return store.tasksOf(runId);
}

/** `owner` submits `task` (the gateway answers `taskId`): recorded, or an orphan if not its claim. */
async function submit(store: PgStore, task: TaskRow, claimer: string, owner = claimer) {
  const now = Date.now();
  const claim = await store.fleet.claimWithin(task, claimer, NO_BUDGET, now);
  if (!("claimed" in claim)) throw new Error(`${task.key} not claimed`);
  const receipt = {
    task: claim.claimed,
    taskId: `id-${task.key}`,
    status: "submitted" as const,
    nextPollAt: now,
    unknownSubmits: 0,
  };
  await store.fleet.recordClaimedReceipt(receipt, owner, now);
  return { ...claim.claimed, state: "submitted" as const, task_id: `id-${task.key}` };
}

async function complete(store: PgStore, task: TaskRow, linkMinutes: number): Promise<void> {
  const now = Date.now();
  const link = { url: `${GATEWAY}/${task.key}.png`, expiresAt: now + linkMinutes * 60_000 };
  await store.recordPollRound(
    [{ task, outcome: { kind: "completed", links: [link], cost: 0.1 } }],
    now,
  );
}

describe("gwrun status on a PostgreSQL store", () => {
  it("shows the fleet: workers with database-time heartbeat ages and this run's submits, the poll leader, the pace, the queue, orphans", async () => {
    const url = await testDatabase({ schema: true });
    const store = await openPgStore(url);
    cleanups.push(() => store.close());

    const [a, b, c, d] = (await recordRun(store, "one", ["a", "b", "c", "d"])) as [
      TaskRow,
      TaskRow,
      TaskRow,
      TaskRow,
    ];
    // A later run that w2 submits to: not run 1's.
    const [other] = (await recordRun(store, "two", ["e"])) as [TaskRow];

    for (const [id, name, host, pid] of [
      [W1, "w1", "host-a", 1234],
      [W2, "w2", "host-b", 99],
      [W3, "w3", "host-c", 7],
      ["5@host-d", "w4", "host-d", 5],
    ] as const)
      await store.fleet.registerWorker({ id, name, host, pid, leaseMs: 90_000 });
    // w3 fell silent and was found dead; w4 left two hours ago (no longer shown).
    await store.pool.query(
      "UPDATE workers SET heartbeat_at = clock_timestamp() - interval '2 minutes' WHERE id = $1",
      [W3],
    );
    expect((await store.fleet.reapWorkers(90_000)).dead).toEqual([W3]);
    await store.pool.query(
      "UPDATE workers SET stopped_at = clock_timestamp() - interval '2 hours' WHERE id = '5@host-d'",
    );

    // w1 submits a and d, w2 submits b and run 2's task; w2's receipt for w1's claim on c
    // comes back after the claim was taken over: an orphan.
    const submittedA = await submit(store, a, W1);
    await submit(store, d, W1);
    const submittedB = await submit(store, b, W2);
    await submit(store, other, W2);
    await submit(store, c, W1, W2);
    // a's link expires within the hour, b's in three hours: both wait for their download.
    await complete(store, submittedA, 30);
    await complete(store, submittedB, 180);

    // The gateway announced 3/s and asked for 30 s of quiet; another account's row is not this run's.
    const pace = store.fleet.pace;
    const { epoch } = await pace.open(GATEWAY, 5);
    await pace.limit(GATEWAY, epoch, 30_000, 3);
    await pace.open("http://other.test", 9);

    const leader = store.fleet.leaderLock(GATEWAY, W1);
    cleanups.push(() => leader.release());
    expect(await leader.tryLead()).toBe(true);

    // One submit job being worked.
    let started!: () => void;
    const working = new Promise<void>((resolve) => {
      started = resolve;
    });
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const runner = await run({
      connectionString: url,
      concurrency: 1,
      noHandleSignals: true,
      pollInterval: 100,
      logger: new Logger(() => () => {}),
      taskList: {
        gwrun_submit: async () => {
          started();
          await held;
        },
      },
    });
    cleanups.push(async () => {
      finish();
      await runner.stop();
    });
    await working;

    // w2's heartbeat is 42 s old by the database's clock: past its fence (20 s of a 90 s
    // lease) it submits nothing more, so it shows as silent. w1 has just beaten.
    await store.pool.query(
      "UPDATE workers SET heartbeat_at = clock_timestamp() - interval '42 seconds' WHERE id = $1",
      [W2],
    );
    expect(await store.fleet.heartbeat(W1)).toBe(true);

    const text = await gwrunAsync(["status", "1"], { env: { GWRUN_STORE: url } }).done;
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    const lines = text.stdout.split("\n");
    expect(lines).toContain("  fleet: 1 worker live, 1 silent; in the last hour 1 dead, 0 stopped");
    const w1 = lines.find((line) => line.startsWith("    w1 "));
    expect(w1).toMatch(
      /^ {4}w1 host-a 1234 heartbeat \d+\.\d s ago, 2 submits for this run, poll leader$/,
    );
    // Ages run on while `gwrun status` starts, slowly on a machine busy with the suite.
    expect(Number(w1?.match(/heartbeat (\S+) s/)?.[1])).toBeLessThan(30);
    expect(text.stdout).toMatch(
      /^ {4}w2 host-b 99 heartbeat (4[2-9]|[5-8]\d)\.\d s ago, silent, found dead at 90 s, 1 submit for this run$/m,
    );
    expect(text.stdout).toMatch(
      /^ {4}w3 host-c 7 heartbeat 1\d\d\.\d s ago, dead, 0 submits for this run$/m,
    );
    expect(text.stdout).not.toContain("w4");
    expect(lines).toContain(`    poll leader: w1 (${W1})`);
    expect(text.stdout).toMatch(
      /^ {4}pace http:\/\/gateway\.test: 2\.97\/s, ceiling 5\/s, announced 3\/s, paused for ([12]?\d|30)\.\d s$/m,
    );
    expect(text.stdout).not.toContain("other.test");
    expect(lines).toContain("    queue: 5 submit jobs, 2 download jobs, 1 running");
    expect(lines).toContain("    links expiring within the hour: 1 task");
    expect(lines).toContain("    orphan task ids: 1");

    const json = await gwrunAsync(["status", "1", "--json"], { env: { GWRUN_STORE: url } }).done;
    expect(json.code).toBe(0);
    const { fleet } = JSON.parse(json.stdout) as { fleet: FleetStatus };
    const byName = Object.fromEntries(fleet.workers.map((worker) => [worker.name, worker]));
    expect(Object.keys(byName).sort()).toEqual(["w1", "w2", "w3"]);
    expect(byName.w1).toMatchObject({
      id: W1,
      host: "host-a",
      pid: 1234,
      state: "live",
      submits: 2,
      poll_leader: true,
    });
    expect(byName.w1?.heartbeat_age_s).toBeLessThan(10);
    expect(byName.w2).toMatchObject({
      state: "silent",
      lease_s: 90,
      submits: 1,
      poll_leader: false,
    });
    expect(byName.w2?.heartbeat_age_s).toBeGreaterThanOrEqual(42);
    expect(byName.w2?.heartbeat_age_s).toBeLessThan(60);
    expect(byName.w3).toMatchObject({ state: "dead", submits: 0 });
    expect(fleet).toMatchObject({
      submits: { [W1]: 2, [W2]: 1 },
      poll_leaders: [W1],
      pace: [{ account: GATEWAY, ceiling: 5, announced: 3 }],
      queue: { submits: 5, downloads: 2, running: 1 },
      expiring_links: 1,
      orphan_task_ids: 1,
    });
    expect(fleet.pace).toHaveLength(1);
    expect(fleet.pace[0]?.rate).toBeCloseTo(2.97);
    expect(fleet.pace[0]?.paused_s).toBeGreaterThan(20);
    expect(fleet.pace[0]?.paused_s).toBeLessThanOrEqual(30);
  }, 60_000);

  it("a worker that died before the run is not credited with the submits it made for an earlier one", async () => {
    const url = await testDatabase({ schema: true });
    const store = await openPgStore(url);
    cleanups.push(() => store.close());
    await store.fleet.registerWorker({
      id: W1,
      name: "w1",
      host: "host-a",
      pid: 1234,
      leaseMs: 90_000,
    });
    // Run 1: w1 pays for three pictures, then dies.
    for (const task of await recordRun(store, "daily", ["a", "b", "c"]))
      await submit(store, task, W1);
    await store.pool.query(
      "UPDATE workers SET heartbeat_at = clock_timestamp() - interval '2 minutes' WHERE id = $1",
      [W1],
    );
    expect((await store.fleet.reapWorkers(90_000)).dead).toEqual([W1]);
    // Run 2 keeps those three as they are and adds one, which w2 submits.
    await store.fleet.registerWorker({
      id: W2,
      name: "w2",
      host: "host-b",
      pid: 99,
      leaseMs: 90_000,
    });
    const second = await recordRun(store, "daily", ["a", "b", "c", "f"]);
    await submit(store, second.find((task) => task.key === "f") as TaskRow, W2);

    const text = await gwrunAsync(["status", "2"], { env: { GWRUN_STORE: url } }).done;
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^ {4}w1 host-a 1234 heartbeat \S+ s ago, dead, 0 submits for this run$/m,
    );
    expect(text.stdout).toMatch(/^ {4}w2 host-b 99 heartbeat \S+ s ago, 1 submit for this run$/m);
    const json = await gwrunAsync(["status", "2", "--json"], { env: { GWRUN_STORE: url } }).done;
    expect(JSON.parse(json.stdout).fleet.submits).toEqual({ [W2]: 1 });
    // Run 1 keeps its own.
    const first = await gwrunAsync(["status", "1", "--json"], { env: { GWRUN_STORE: url } }).done;
    expect(JSON.parse(first.stdout).fleet.submits).toEqual({ [W1]: 3 });
  }, 60_000);
});
