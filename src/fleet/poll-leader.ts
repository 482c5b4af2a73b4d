import { Poller, pollRound } from "../engine/index.js";
import { type LeaderLock, type PgStore, TaskState } from "../store/index.js";
import type { FleetRun } from "./fleet-run.js";

/**
 * Polls for the fleet: the one worker holding an account's leader lock asks the gateway about
 * every task it holds for the runs of that account, in full batch calls, as a single host
 * would. Every round it learns from the store which tasks are in flight (other workers
 * submitted them); completions are queued as download jobs by the store itself.
 */
const HELD: readonly string[] = [TaskState.Submitted, TaskState.Processing];

export class PollLeader {
  readonly #store: PgStore;
  readonly #lock: LeaderLock;
  /** Per run: the tasks it polls, and when each is due. */
  readonly #pollers = new Map<number, Poller>();

  constructor(store: PgStore, lock: LeaderLock) {
    this.#store = store;
    this.#lock = lock;
  }

  get leading(): boolean {
    return this.#lock.leading;
  }

  /** One round: leads if it can, then polls what is due of `runs` (all of one account). */
  async round(runs: readonly FleetRun[]): Promise<void> {
    if (!(await this.#lock.tryLead())) {
      // A standby forgets what it knew: the leader's view is the one that counts.
      this.#pollers.clear();
      return;
    }
    const held = await this.#store.fleet.heldByGateway(runs.map((run) => run.id));
    const untracked = held.filter((task) => !this.#pollers.get(task.run_id)?.has(task.key));
    const rows = await this.#store.tasksByKey(untracked.map((task) => task.key));
    for (const run of runs) {
      const poller = this.#pollers.get(run.id) ?? this.#newPoller(run);
      const keys = new Set(held.filter((task) => task.run_id === run.id).map((task) => task.key));
      for (const key of keys) {
        const task = rows.get(key);
        // Read while still held (it may have moved on since the keys were read).
        if (task !== undefined && !poller.has(key) && HELD.includes(task.state))
          poller.track(task, task.next_poll_at ?? run.context.clock.now());
      }
      // Moved on elsewhere (failed by a retry, reaped): no longer polled.
      poller.keepOnly(keys);
      await this.#pollDue(run, poller);
    }
  }

  async release(): Promise<void> {
    this.#pollers.clear();
    await this.#lock.release();
  }

  #newPoller(run: FleetRun): Poller {
    const { batchSize, everyMs } = run.context.settings.poll;
    const poller = new Poller({ batchSize, everyMs });
    this.#pollers.set(run.id, poller);
    return poller;
  }

  /** The store queues a completed task's download job itself: the rest is the round's. */
  async #pollDue(run: FleetRun, poller: Poller): Promise<void> {
    for (const batch of poller.due(run.context.clock.now()))
      await pollRound(batch, poller, run.context);
  }
}
