import type { Clock } from "../core/clock.js";
import { nextTick, type Schedule, tickLabel, ticksBetween } from "../manifest/index.js";
import {
  type LeaseHolder,
  type LeaseRow,
  lastTickAt,
  recordTickNotRun,
  type Store,
  type TickTrigger,
  TickTrigger as Trigger,
  unfinishedTicks,
} from "../store/index.js";
import { describeHolder, type Lease, tryLease } from "./lease.js";
import { runTickUnderLease, type TickRunner } from "./tick-run.js";

/**
 * `gwrun schedule`: runs each scheduled manifest's ticks, one manifest at a time per lease.
 *
 * Each manifest has its own loop. A due tick is classed by when it fell:
 * - the newest, while idle and on time (within LATE_MS): run it;
 * - while this loop's previous run was going: `overlap: skip` records it skipped, `wait`
 *   runs it now;
 * - any other (the scheduler was down, the machine slept): `catch_up` decides — none records
 *   each missed, latest runs only the newest, all runs each in order.
 * On the first start for a manifest nothing is caught up: its schedule starts now. A tick whose
 * lease another process holds is skipped (`overlap: skip`) or waits for it (`wait`).
 */

/** A tick this late is no longer on time but caught up, ms. */
export const LATE_MS = 60_000;
/** How often a waiting tick asks for the lease again, ms. */
export const LEASE_POLL_MS = 5_000;

/** A manifest as the scheduler needs it. */
export interface ScheduledManifest {
  file: string;
  name: string;
  schedule: Schedule;
}

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  /** Reads the manifest again before each wait, so edits apply without a restart. */
  load(file: string): Promise<ScheduledManifest>;
  /** Runs a tick of a manifest (the lease is held). */
  run(manifest: ScheduledManifest): TickRunner;
  /** One plain line for the log. */
  log(line: string): void;
  /** Lease holder and liveness, injected by tests; default this process. */
  lease?: { holder?: LeaseHolder; isGone?: (lease: LeaseRow) => boolean };
}

export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #stop = new AbortController();

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** Runs every manifest's loop until `stop()`; resolves when all have ended. */
  async run(manifests: readonly ScheduledManifest[]): Promise<void> {
    await Promise.all(manifests.map((manifest) => this.#loop(manifest)));
  }

  /** Ends the loops: no more ticks; a run under way is stopped by its own signal handling. */
  stop(): void {
    this.#stop.abort();
  }

  get #stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  async #loop(first: ScheduledManifest): Promise<void> {
    const { store, clock, log } = this.#options;
    let manifest = first;
    // Ticks up to the cursor are handled; the first start for a manifest catches nothing up.
    let cursor = lastTickAt(store, manifest.name) ?? clock.now();
    // Ticks up to here fell while this loop's own run was going.
    let busyUntil = Number.NEGATIVE_INFINITY;
    log(
      `${manifest.name}: scheduled "${manifest.schedule.cron}" in ${manifest.schedule.timezone} (${manifest.file})`,
    );
    await this.#recover(manifest);
    while (!this.#stopped) {
      const now = clock.now();
      const { ticks: due, dropped } = ticksBetween(manifest.schedule, cursor, now);
      if (due.length === 0) {
        manifest = await this.#reload(manifest);
        const next = nextTick(manifest.schedule, Math.max(cursor, now));
        if (next === undefined) {
          log(
            `${manifest.name}: "${manifest.schedule.cron}" is never due again; its schedule ends`,
          );
          return;
        }
        try {
          await clock.sleep(next - now, this.#stop.signal);
        } catch {
          return;
        }
        continue;
      }
      if (dropped > 0) log(`${manifest.name}: ${dropped} older missed ticks left unrecorded`);
      const fellWhileBusy = due.filter((tick) => tick <= busyUntil);
      const idle = due.filter((tick) => tick > busyUntil);
      // Only the newest tick can be on time; any before it went by unseen.
      const newest = idle.at(-1);
      const onTime = newest !== undefined && now - newest <= LATE_MS ? newest : undefined;
      const missed = onTime === undefined ? idle : idle.slice(0, -1);
      const toRun: { tick: number; trigger: TickTrigger }[] = [];
      for (const tick of fellWhileBusy) {
        if (manifest.schedule.overlap === "wait") toRun.push({ tick, trigger: Trigger.OnTime });
        else this.#notRun(manifest, tick, "skipped", "the run of an earlier tick was still going");
      }
      const catchUp = manifest.schedule.catchUp;
      missed.forEach((tick, index) => {
        const latest = index === missed.length - 1 && onTime === undefined;
        if (catchUp === "all" || (catchUp === "latest" && latest)) {
          toRun.push({ tick, trigger: Trigger.CatchUp });
        } else {
          this.#notRun(
            manifest,
            tick,
            "missed",
            `missed while no scheduler ran (catch_up: ${catchUp})`,
          );
        }
      });
      if (onTime !== undefined) toRun.push({ tick: onTime, trigger: Trigger.OnTime });
      cursor = due.at(-1) as number;
      for (const { tick, trigger } of toRun) {
        if (this.#stopped) return;
        await this.#handle(manifest, tick, trigger);
      }
      if (toRun.length > 0) busyUntil = clock.now();
    }
  }

  /**
   * A tick whose run was cut short (a crash, a stop) continues at once when nobody holds the
   * lease; one that is held is left to its holder.
   */
  async #recover(manifest: ScheduledManifest): Promise<void> {
    const latest = unfinishedTicks(this.#options.store, manifest.name).at(-1);
    if (latest === undefined) return;
    const lease = tryLease(
      this.#options.store,
      manifest.name,
      this.#options.clock,
      this.#options.lease,
    );
    if (!("release" in lease)) return;
    await this.#runHeld(manifest, lease, latest.tick, Trigger.Resumed);
  }

  /** The manifest as it is now; the one in hand when it no longer loads. */
  async #reload(manifest: ScheduledManifest): Promise<ScheduledManifest> {
    try {
      const fresh = await this.#options.load(manifest.file);
      return fresh.name === manifest.name ? fresh : manifest;
    } catch (error) {
      this.#options.log(
        `${manifest.name}: ${manifest.file} did not load (${(error as Error).message}); keeping its schedule`,
      );
      return manifest;
    }
  }

  #notRun(manifest: ScheduledManifest, tick: number, status: "skipped" | "missed", reason: string) {
    const { store, clock, log } = this.#options;
    recordTickNotRun(
      store,
      { name: manifest.name, tick, status, trigger: Trigger.OnTime, reason },
      clock.now(),
    );
    log(`${manifest.name}: tick ${tickLabel(tick, manifest.schedule)} ${status}: ${reason}`);
  }

  /** Takes the lease (skipping or waiting when another process holds it) and runs the tick. */
  async #handle(manifest: ScheduledManifest, tick: number, trigger: TickTrigger): Promise<void> {
    const { store, clock, log } = this.#options;
    let lease = tryLease(store, manifest.name, clock, this.#options.lease);
    let waitingSaid = false;
    while (!("release" in lease)) {
      const holder = describeHolder(lease.heldBy, clock.now());
      if (manifest.schedule.overlap === "skip") {
        this.#notRun(
          manifest,
          tick,
          "skipped",
          `another run of ${manifest.name} holds its lease (${holder})`,
        );
        return;
      }
      if (!waitingSaid) {
        log(
          `${manifest.name}: tick ${tickLabel(tick, manifest.schedule)} waits: another run holds its lease (${holder})`,
        );
        waitingSaid = true;
      }
      try {
        await clock.sleep(LEASE_POLL_MS, this.#stop.signal);
      } catch {
        return;
      }
      lease = tryLease(store, manifest.name, clock, this.#options.lease);
    }
    await this.#runHeld(manifest, lease, tick, trigger);
  }

  async #runHeld(
    manifest: ScheduledManifest,
    lease: Lease,
    tick: number,
    trigger: TickTrigger,
  ): Promise<void> {
    const { store, clock, log } = this.#options;
    try {
      await runTickUnderLease({
        store,
        name: manifest.name,
        schedule: manifest.schedule,
        tick,
        trigger,
        clock,
        run: this.#options.run(manifest),
        log,
      });
    } finally {
      lease.release();
    }
  }
}
