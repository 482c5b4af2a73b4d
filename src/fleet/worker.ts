import { EventEmitter, setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Runner } from "graphile-worker";
import PQueue from "p-queue";
import type { Pool } from "pg";
import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { CLAIM_OWNER } from "../core/process.js";
import { type FleetRunRow, type PgStore, QUEUES } from "../store/index.js";
import { downloadJob } from "./download-job.js";
import { type FleetRun, haltOf, type OpenRun } from "./fleet-run.js";
import { PollLeader } from "./poll-leader.js";
import { reap } from "./reaper.js";
import { type RunWorkEnd, runEndedLine, runStartedLine } from "./run-log.js";
import { submitJob } from "./submit-job.js";
import { type FleetTiming, fleetTiming } from "./timing.js";

/** How often the poll leader looks for due polls (each run's poll settings decide the rest). */
const POLL_TICK_MS = 100;
/** How often a worker reads halts, settles runs and looks for dead workers. */
const MAINTAIN_EVERY_MS = 1000;

export interface WorkerOptions {
  store: PgStore;
  /**
   * Its id in the fleet, which its claims name (default: this process's, `pid@host`); a
   * process holding several workers gives each its own, and opens their runs with it.
   */
  id?: string;
  /** How the fleet names it (`--name`); its claims name `pid@host`. */
  name: string;
  /** Submit jobs at once. */
  concurrency: number;
  /** Download jobs (download, checks, thumbnails) at once. */
  downloads: number;
  /** Works only this run (`--run`, and `gwrun run` working its own). */
  onlyRun?: number;
  openRun: OpenRun;
  /** Runs this process has opened already (its own run against the in-process simulator). */
  opened?: readonly FleetRun[];
  /** Records a settled run's ending and report (whichever worker sees it first). */
  settle(run: FleetRunRow): Promise<void>;
  clock: Clock;
  /** The lease after which a silent worker is dead; the other timings follow from it. */
  leaseMs?: number;
  log(line: string): void;
  /** Log a line when it starts and when it ends work on a run (`gwrun worker`). */
  logRuns?: boolean;
}

/**
 * A worker of the fleet: takes submit and download jobs from graphile-worker, leads polls for
 * a gateway account when no other worker does, heartbeats, resolves dead workers' claims, and
 * records the ending of runs that settle. `stop()` (SIGTERM) claims nothing more, lets the
 * submits under way record their task ids, and gives back its lock and jobs.
 */
export class FleetWorker {
  readonly id: string;
  readonly #options: WorkerOptions;
  readonly #timing: FleetTiming;
  readonly #runs = new Map<number, Promise<FleetRun | undefined>>();
  /** The runs it has started work on and not yet ended, by id: their names, for its log. */
  readonly #working = new Map<number, string>();
  readonly #leaders = new Map<string, PollLeader>();
  readonly #runners: Runner[] = [];
  /** The runners' pools, ended once they have stopped (`FleetStore.queuePool`). */
  readonly #pools: { end(): Promise<void> }[] = [];
  readonly #stop = new AbortController();
  #lastBeat: number;
  #lastReap = 0;
  #stopped: Promise<void> | undefined;
  #loops: Promise<unknown>[] = [];

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.id = options.id ?? CLAIM_OWNER;
    // Every job under way and every loop waits on the stop signal: more than ten is normal.
    setMaxListeners(0, this.#stop.signal);
    this.#timing = fleetTiming(options.leaseMs);
    this.#lastBeat = options.clock.now();
    for (const run of options.opened ?? []) this.#runs.set(run.id, Promise.resolve(run));
  }

  get stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Whether this worker leads polls for any account now. */
  get leading(): boolean {
    return [...this.#leaders.values()].some((leader) => leader.leading);
  }

  async start(): Promise<void> {
    const { store, name } = this.#options;
    const pid = process.pid;
    // A process before this one had the same pid on this host: its claims are resolved first.
    await reap(store, this.#reapDeps(), [this.id]);
    const leaseMs = this.#timing.leaseMs;
    await store.fleet.registerWorker({ id: this.id, name, host: hostname(), pid, leaseMs });
    this.#lastBeat = this.#options.clock.now();
    const { run, Logger } = await import("graphile-worker");
    const events = new EventEmitter();
    events.on("pool:create", ({ workerPool }: { workerPool: { id: string } }) => {
      store.fleet.addWorkerPool(this.id, workerPool.id).catch(() => {});
    });
    const shared = {
      noHandleSignals: true,
      pollInterval: 500,
      logger: new Logger(() => (level: string, message: string) => {
        if (level === "error") this.#options.log(`queue: ${message}`);
      }),
      events,
      // A worker of one run leaves the others' jobs alone; any other takes every job it lists.
      forbiddenFlags:
        this.#options.onlyRun === undefined ? undefined : () => this.#otherRunsFlags(),
    };
    // A download job's tasks go on together, within the worker's slots: a job of ten holds one
    // of the runner's places and as many slots as it finds free.
    const slots = new PQueue({ concurrency: this.#options.downloads });
    const deps = {
      inSlot: <T>(work: () => Promise<T>) => slots.add(work) as Promise<T>,
      store,
      runOf: (id: number) => this.#workableRun(id),
      mayClaim: () => this.#mayClaim(),
      wait: (ms: number) => this.#options.clock.sleep(ms, this.#stop.signal).catch(() => {}),
    };
    const key = (payload: unknown) => String((payload as { key?: unknown }).key);
    // A submit or download job names one task (`key`) or lists several (`keys`).
    const keys = (payload: unknown) => {
      const { keys: listed } = payload as { keys?: unknown };
      return Array.isArray(listed) ? listed.map(String) : [key(payload)];
    };
    // Jobs fetched a batch at a time and their completions written together: a query per job
    // to fetch it and one to delete it were much of the database's work. Twice the jobs it
    // runs at once: each fetch is a heavy query, and the jobs a worker holds back stay few
    // enough that a second worker still gets its share of a small run. A worker of one run
    // fetches job by job: graphile-worker hands a batch only to fetches without forbidden
    // flags, so a batch would sit locked in its local queue.
    const batched = (concurrency: number) => ({
      concurrency,
      pgPool: this.#queuePool(concurrency + 2),
      preset: {
        worker: {
          localQueue: { size: this.#options.onlyRun === undefined ? concurrency * 2 : -1 },
          completeJobBatchDelay: 0,
        },
      },
    });
    this.#runners.push(
      await run({
        ...shared,
        ...batched(this.#options.concurrency),
        taskList: { gwrun_submit: (payload) => submitJob(keys(payload), deps) },
        schema: QUEUES.submit,
      }),
      await run({
        ...shared,
        ...batched(this.#options.downloads),
        taskList: { gwrun_download: (payload) => downloadJob(keys(payload), deps) },
        schema: QUEUES.download,
      }),
    );
    this.#loops = [
      this.#loop(() => this.#pollRounds(), POLL_TICK_MS),
      this.#heartbeats(),
      this.#maintain(),
    ];
  }

  /** Claims nothing more, lets the submits under way record, releases its lock and jobs. */
  stop(): Promise<void> {
    this.#stopped ??= this.#shutdown();
    return this.#stopped;
  }

  /** Resolves once the worker has stopped (after `stop()`, or a fatal fault). */
  async stopped(): Promise<void> {
    await Promise.all(this.#loops);
    await this.stop();
  }

  async #shutdown(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#runners.map((runner) => runner.stop()));
    await Promise.all(this.#pools.map((pool) => pool.end()));
    await Promise.all(this.#loops);
    for (const id of [...this.#working.keys()]) await this.#endWork(id, "stopped");
    await Promise.all([...this.#leaders.values()].map((leader) => leader.release()));
    await this.#options.store.fleet.workerStopped(this.id).catch(() => {});
    for (const opening of this.#runs.values()) await (await opening)?.releasers.release();
  }

  #queuePool(max: number): Pool {
    const queue = this.#options.store.fleet.queuePool(max);
    this.#pools.push(queue);
    return queue.pool as Pool;
  }

  #mayClaim(): void {
    if (this.stopping) throw new Error("this worker is stopping; another takes the task");
    const silent = this.#options.clock.now() - this.#lastBeat;
    if (silent > this.#timing.fenceMs)
      throw new Error(
        `this worker's heartbeat is ${(silent / 1000).toFixed(1)} s old; it starts no submit until the store hears it again`,
      );
  }

  #runOf(id: number): Promise<FleetRun | undefined> {
    if (this.#options.onlyRun !== undefined && id !== this.#options.onlyRun)
      return Promise.resolve(undefined);
    let opening = this.#runs.get(id);
    if (opening === undefined) {
      opening = this.#open(id);
      this.#runs.set(id, opening);
    }
    return opening;
  }

  async #open(id: number): Promise<FleetRun | undefined> {
    const row = await this.#options.store.fleet.fleetRun(id);
    if (row === undefined) return undefined;
    try {
      const run = await this.#options.openRun(row);
      if (run !== undefined) run.halt = haltOf(row);
      if (run !== undefined && this.#options.logRuns === true) {
        this.#working.set(id, row.name);
        this.#options.log(runStartedLine(row));
      }
      return run;
    } catch (error) {
      this.#runs.delete(id);
      this.#options.log(`run ${id} cannot be worked here: ${coerceError(error).message}`);
      throw error;
    }
  }

  /**
   * A job's run, or an error that puts the job back in the queue: this worker works another
   * run (`--run`).
   */
  async #workableRun(id: number): Promise<FleetRun> {
    const run = await this.#runOf(id);
    if (run === undefined)
      throw new Error(`run ${id} is worked elsewhere; its job waits for that worker`);
    return run;
  }

  /** The flags of the runs a worker of one run leaves alone: every other active run. */
  async #otherRunsFlags(): Promise<string[]> {
    const { store, onlyRun } = this.#options;
    const others = (await store.fleet.activeRuns()).filter((run) => run.id !== onlyRun);
    return others.map((run) => `run:${run.id}`);
  }

  /** Poll rounds for each account this worker's runs use; it leads those no one else does. */
  async #pollRounds(): Promise<void> {
    const byAccount = new Map<string, FleetRun[]>();
    for (const opening of this.#runs.values()) {
      const run = await opening.catch(() => undefined);
      if (run === undefined) continue;
      byAccount.set(run.account, [...(byAccount.get(run.account) ?? []), run]);
    }
    for (const [account, runs] of byAccount) {
      let leader = this.#leaders.get(account);
      if (leader === undefined) {
        leader = new PollLeader(
          this.#options.store,
          this.#options.store.fleet.leaderLock(account, this.id),
        );
        this.#leaders.set(account, leader);
      }
      await leader.round(runs);
    }
  }

  /** The runs to work and their halts, dead workers, settled runs. */
  async #maintain(): Promise<void> {
    const { store, clock } = this.#options;
    await this.#loop(async () => {
      const active = await store.fleet.activeRuns();
      // A run no longer active has settled: work on it has ended.
      for (const id of this.#working.keys())
        if (!active.some((row) => row.id === id)) await this.#endWork(id, "ended");
      for (const row of active) {
        if (this.#options.onlyRun !== undefined && row.id !== this.#options.onlyRun) continue;
        const run = await this.#runOf(row.id).catch(() => undefined);
        if (run !== undefined) run.halt = haltOf(row);
        if (row.queued && !(await store.fleet.hasWorkLeft(row.id, row.halt !== null)))
          await this.#options.settle(row);
      }
      if (clock.now() - this.#lastReap >= this.#timing.reapEveryMs) {
        this.#lastReap = clock.now();
        await reap(store, this.#reapDeps());
      }
    }, MAINTAIN_EVERY_MS);
  }

  /** Logs the end of its work on run `id`, once. */
  async #endWork(id: number, end: RunWorkEnd): Promise<void> {
    const name = this.#working.get(id);
    if (name === undefined) return;
    this.#working.delete(id);
    const line = await runEndedLine(this.#options.store, { id, name }, end).catch(
      (error) =>
        `run ${id} ${name}: ${end} work (its counts could not be read: ${coerceError(error).message})`,
    );
    this.#options.log(line);
  }

  /** Tells the store this worker lives; a loop of its own, so slow upkeep never delays it. */
  async #heartbeats(): Promise<void> {
    const { store, clock } = this.#options;
    await this.#loop(async () => {
      const sent = clock.now();
      if (await store.fleet.heartbeat(this.id)) this.#lastBeat = sent;
      else {
        this.#options.log("this worker was presumed dead by the fleet (no heartbeat); it stops");
        void this.stop();
      }
    }, this.#timing.heartbeatMs);
  }

  #reapDeps() {
    return {
      self: this.id,
      leaseMs: this.#timing.leaseMs,
      now: () => this.#options.clock.now(),
      policyOf: async (runId: number) =>
        (await this.#runOf(runId).catch(() => undefined))?.context.settings.retry.onUnknownSubmit,
      log: this.#options.log,
    };
  }

  /** Repeats `step` every `everyMs` until the worker stops; a failed step is logged, not fatal. */
  async #loop(step: () => Promise<void>, everyMs: number): Promise<void> {
    // A failure met again every step is said once, until a step goes through.
    let failing: string | undefined;
    while (!this.stopping) {
      try {
        await step();
        failing = undefined;
      } catch (error) {
        const message = coerceError(error).message;
        if (!this.stopping && message !== failing) this.#options.log(message);
        failing = message;
      }
      await this.#options.clock.sleep(everyMs, this.#stop.signal).catch(() => {});
    }
  }
}
