import { describe, expect, it } from "vitest";
import {
  busiestSubmitter,
  exitsWithin,
  fleetManifest,
  runEnded,
  submittingBy,
  waitFor,
  withFleet,
  workerRows,
} from "../../helpers/fleet.js";

/**
 * Workers killed outright (kill -9): the survivors resolve what the dead one held, so the
 * run still ends, every task the gateway made is accounted for, and polls go on.
 */

const LEASE_MS = 3000;

describe("a fleet losing a worker", () => {
  it("resolves a killed worker's submitting claims within its lease, and accounts for every task the gateway made", async () => {
    const sim = {
      rateLimit: { perSecond: 5, burst: 2 },
      faults: { lostResponseRate: 0.05 },
    };
    await withFleet(sim, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest(fleet.outputDir, 30));
      expect((await fleet.record(manifest)).code).toBe(0);
      const workers = [
        fleet.worker(["--name", "a", "--lease", "3s"]),
        fleet.worker(["--name", "b", "--lease", "3s"]),
      ];
      const victimId = await waitFor("a worker holding two claims", () =>
        busiestSubmitter(fleet.db, 2),
      );
      const victim = workers.find((worker) => worker.id === victimId);
      const survivor = workers.find((worker) => worker.id !== victimId);
      if (victim === undefined || survivor === undefined) throw new Error(`${victimId} is ours`);
      victim.child.kill("SIGKILL");
      const killedAt = Date.now();
      await victim.done;

      await waitFor(
        "the dead worker's claims to be resolved",
        async () => ((await submittingBy(fleet.db, victim.id)) === 0 ? true : undefined),
        LEASE_MS + 10_000,
      );
      const resolvedInMs = Date.now() - killedAt;
      expect(resolvedInMs).toBeLessThan(LEASE_MS + 10_000);
      expect((await workerRows(fleet.db)).get(victim.id)?.dead_at).toBeInstanceOf(Date);
      expect(survivor.stderr()).toContain(`worker ${victim.id} is gone`);

      // A short lease fences a busy worker now and then; its jobs come back after a backoff.
      const ended = await runEnded(fleet.db, 75_000);
      expect(["done", "failed"]).toContain(ended);
      const { rows: tasks } = await fleet.db.query<{
        state: string;
        reason: string | null;
        task_id: string | null;
        unknown_submits: number;
      }>("SELECT state, reason, task_id, unknown_submits FROM jobs");
      expect(tasks).toHaveLength(30);
      for (const task of tasks) {
        expect(["done", "failed"]).toContain(task.state);
        if (task.state === "failed") expect(task.reason).toBeTruthy();
      }
      const counters = await fleet.counters();
      const unknown = tasks.reduce((sum, task) => sum + task.unknown_submits, 0);
      // A submit is made again only when its first may have reached the gateway, and counted.
      expect(counters.submits.repeated).toBeLessThanOrEqual(unknown);
      // Every task the gateway made is recorded (on its task, or as an orphan), but for those
      // whose answer never reached a live worker, each of which counted as an unknown submit.
      const { rows: orphans } = await fleet.db.query<{ task_id: string }>(
        "SELECT task_id FROM orphan_tasks",
      );
      const recorded = new Set([
        ...tasks.flatMap((task) => (task.task_id === null ? [] : [task.task_id])),
        ...orphans.map((orphan) => orphan.task_id),
      ]);
      expect(recorded.size).toBeLessThanOrEqual(counters.tasks.created);
      expect(counters.tasks.created - recorded.size).toBeLessThanOrEqual(unknown);
      expect(counters.submits.accepted).toBe(counters.tasks.created);

      survivor.child.kill("SIGTERM");
      expect((await exitsWithin(survivor, 15_000)).code).toBe(0);
    });
  }, 120_000);

  it("a killed worker of a run that holds unknown submits leaves held only the tasks it was sending", async () => {
    // 200 tasks: submit jobs of three, which a run that resubmits would claim together.
    await withFleet({ rateLimit: { perSecond: 5, burst: 1 } }, async (fleet) => {
      const text = fleetManifest(fleet.outputDir, 200).replace(
        "retry: { attempts: 6,",
        "retry: { on_unknown_submit: hold, attempts: 6,",
      );
      expect((await fleet.record(fleet.write("fleet.yaml", text))).code).toBe(0);
      const worker = fleet.worker(["--name", "a", "--lease", "3s", "--concurrency", "2"]);
      await waitFor("the worker to hold two claims", async () =>
        (await submittingBy(fleet.db, worker.id)) >= 2 ? true : undefined,
      );
      const held = await submittingBy(fleet.db, worker.id);
      worker.child.kill("SIGKILL");
      await worker.done;
      // One task per submit job at a time: no more claims than the jobs it ran at once.
      expect(held).toBeLessThanOrEqual(2);
      const heir = fleet.worker(["--name", "b", "--lease", "3s"]);
      const { rows } = await waitFor("the dead worker's claims to be held", async () => {
        const found = await fleet.db.query("SELECT key FROM jobs WHERE state = 'held'");
        return (await submittingBy(fleet.db, worker.id)) === 0 ? found : undefined;
      });
      expect(rows.length).toBeLessThanOrEqual(2);
      // Stopped while it may still be starting up: only that it ends matters here.
      heir.child.kill("SIGTERM");
      await exitsWithin(heir, 15_000);
    });
  }, 120_000);

  it("hands the poll lead to another worker when the leader is killed, and polls go on", async () => {
    // Each task takes about six real seconds at the gateway: polls outlive the leader.
    await withFleet({ latencySeconds: { image: 6 * 3600 } }, async (fleet) => {
      const manifest = fleet.write("fleet.yaml", fleetManifest(fleet.outputDir, 20));
      expect((await fleet.record(manifest)).code).toBe(0);
      const workers = [fleet.worker(["--name", "a"]), fleet.worker(["--name", "b"])];
      const leaders = async () => {
        const { rows } = await fleet.db.query<{ name: string }>(
          `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'gwrun-leader:%'
             AND a.datname = current_database()`,
        );
        return rows.map((row) => row.name.slice("gwrun-leader:".length));
      };
      // Every task submitted (nothing in a dead worker's hands to pay again), and polled.
      await waitFor("every task submitted and a batch poll", async () => {
        const { rows } = await fleet.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM jobs WHERE state IN ('submitted', 'processing')",
        );
        return rows[0]?.n === 20 && (await fleet.counters()).queries.batch > 0 ? true : undefined;
      });
      const [leaderId] = await waitFor("a poll leader", async () => {
        const found = await leaders();
        return found.length === 1 ? found : undefined;
      });
      const leader = workers.find((worker) => worker.id === leaderId);
      const standby = workers.find((worker) => worker.id !== leaderId);
      if (leader === undefined || standby === undefined) throw new Error(`${leaderId} is ours`);
      leader.child.kill("SIGKILL");
      await leader.done;

      await waitFor("the standby to lead", async () =>
        (await leaders()).includes(standby.id) ? true : undefined,
      );
      const atTakeover = (await fleet.counters()).queries.batch;
      await waitFor("batch polls from the new leader", async () =>
        (await fleet.counters()).queries.batch > atTakeover ? true : undefined,
      );
      expect(await runEnded(fleet.db)).toBe("done");
      const { rows } = await fleet.db.query<{ state: string; n: number }>(
        "SELECT state, count(*)::int AS n FROM jobs GROUP BY state",
      );
      expect(rows).toEqual([{ state: "done", n: 20 }]);
      const counters = await fleet.counters();
      expect(counters.submits.accepted).toBe(20);
      expect(counters.queries.single).toBe(0);
      standby.child.kill("SIGTERM");
      expect((await exitsWithin(standby, 15_000)).code).toBe(0);
    });
  }, 120_000);
});
