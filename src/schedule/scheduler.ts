import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { nextTick, type Schedule, tickLabel, ticksBetween } from "../manifest/index.js";
import {
  type LeaseHolder,
  type LeaseRow,
  type Store,
  type TickTrigger,
  TickTrigger as Trigger,
} from "../store/index.js";
import { decideDueTicks } from "./due-ticks.js";
import { tickWhen } from "./idle-tick.js";
import { describeHolder, type Lease, tryLease } from "./lease.js";
import { runTickUnderLease, type TickRunner } from "./tick-run.js";

/**
 * `gwrun schedule`: runs each scheduled manifest's ticks, one manifest at a time per lease.
 *
 * Each manifest has its own loop: it sleeps until the next tick, then decides what becomes of
 * every tick due since the last one handled (`decideDueTicks`: on time, overlapping its own
 * run, or missed). On the first start for a manifest nothing is caught up: its schedule starts
 * now. A tick whose lease another process holds is skipped (`overlap: skip`) or waits for it
 * (`wait`).
 */

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

const LEASE_LOST = "lost its lease to another process (this one stalled past the lease's expiry)";

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
    let cursor = (await store.lastTickAt(manifest.name)) ?? clock.now();
    // Ticks up to here fell while this loop's own run was going.
    let busyUntil = Number.NEGATIVE_INFINITY;
    // The next tick the log last named, so a wait names it once.
    let announced: number | undefined;
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
        if (next !== announced)
          log(`${manifest.name}: next tick due at ${tickWhen(manifest.schedule, next)}`);
        announced = next;
        try {
          await clock.sleep(next - now, this.#stop.signal);
        } catch {
          return;
        }
        continue;
      }
      if (dropped > 0) log(`${manifest.name}: ${dropped} older missed ticks left unrecorded`);
      cursor = due.at(-1) as number;
      let ran = false;
      for (const decision of decideDueTicks(due, { now, busyUntil, schedule: manifest.schedule })) {
        if (this.#stopped) return;
        if (decision.action === "run") {
          await this.#handle(manifest, decision.tick, decision.trigger);
          ran = true;
        } else {
          await this.#notRun(manifest, decision);
        }
      }
      if (ran) busyUntil = clock.now();
    }
  }

  /**
   * A tick whose run was cut short (a crash, a stop) continues at once when nobody holds the
   * lease; one that is held is left to its holder.
   */
  async #recover(manifest: ScheduledManifest): Promise<void> {
    const latest = (await this.#options.store.unfinishedTicks(manifest.name)).at(-1);
    if (latest === undefined) return;
    const lease = await this.#tryLease(manifest);
    if (!("release" in lease)) return;
    await this.#runHeld(manifest, lease, latest.tick, Trigger.Resumed);
  }

  #tryLease(manifest: ScheduledManifest): ReturnType<typeof tryLease> {
    const { store, clock, log } = this.#options;
    return tryLease(store, manifest.name, clock, {
      ...this.#options.lease,
      onLost: () => log(`${manifest.name}: ${LEASE_LOST}`),
    });
  }

  /** The manifest as it is now; the one in hand when it no longer loads. */
  async #reload(manifest: ScheduledManifest): Promise<ScheduledManifest> {
    try {
      const fresh = await this.#options.load(manifest.file);
      return fresh.name === manifest.name ? fresh : manifest;
    } catch (error) {
      this.#options.log(
        `${manifest.name}: ${manifest.file} no longer loads (${coerceError(error).message}); its last good schedule stays in force`,
      );
      return manifest;
    }
  }

  async #notRun(
    manifest: ScheduledManifest,
    not: { tick: number; action: "skipped" | "missed"; trigger: TickTrigger; reason: string },
  ): Promise<void> {
    const { store, clock, log } = this.#options;
    const { tick, action: status, trigger, reason } = not;
    await store.recordTickNotRun(
      { name: manifest.name, tick, status, trigger, reason },
      clock.now(),
    );
    log(`${manifest.name}: tick ${tickLabel(tick, manifest.schedule)} ${status}: ${reason}`);
  }

  /** Takes the lease (skipping or waiting when another process holds it) and runs the tick. */
  async #handle(manifest: ScheduledManifest, tick: number, trigger: TickTrigger): Promise<void> {
    const { clock, log } = this.#options;
    let lease = await this.#tryLease(manifest);
    let waitingSaid = false;
    while (!("release" in lease)) {
      const holder = describeHolder(lease.heldBy, clock.now());
      if (manifest.schedule.overlap === "skip") {
        await this.#notRun(manifest, {
          tick,
          action: "skipped",
          trigger,
          reason: `another run of ${manifest.name} holds its lease (${holder})`,
        });
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
      lease = await this.#tryLease(manifest);
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
      await lease.release();
    }
  }
}
