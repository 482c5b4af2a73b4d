import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { plural } from "../core/words.js";
import { describeHolder, LEASE_POLL_MS, type Lease, tryLease } from "../schedule/index.js";
import type { LeaseHolder, LeaseRow, Store } from "../store/index.js";
import { FolderEvents } from "./folder-events.js";
import { scanFiles, watchedFolders } from "./scan.js";
import { SettleRule, type Signature } from "./settle.js";

/**
 * `gwrun watch`: runs a manifest's new tasks as files land in the folders its `rows: { files }`
 * globs search. The loop: list the globs (at an event, at a file's settle deadline, every
 * `rescanMs`), check the format of each file that has been still for the settle time, and once
 * something arrived and every file is settled (`SettleRule`), take the manifest's lease — the
 * one scheduled runs take, so no two runs of it overlap — and run one batch. Files that land
 * while it runs are the next batch's. `stop()` ends the loop; a run under way is stopped by its
 * own signal handling, as `gwrun run`'s is.
 */

/** How often the folders are listed without an event, ms: what a missed event costs at most. */
export const RESCAN_MS = 30_000;
/** Events this close together are one look, ms: a copy writes many times a second. */
const GATHER_MS = 100;
/** The exit code of an interrupted run. */
const INTERRUPTED = 130;

/** A manifest as the watch needs it. */
export interface WatchedManifest {
  name: string;
  /** The manifest's folder (absolute): the globs are relative to it. */
  dir: string;
  /** The globs of every `rows: { files }` job, `!` ones included. */
  globs: readonly string[];
}

/** A batch of settled arrivals, for a run. */
export interface Batch {
  /** Files arrived or changed since the last batch, in path order. */
  files: readonly string[];
  /** True while every file the globs match is as the batch took it: asked once a run listed them. */
  unchanged(): boolean;
  /** Aborted when the watch stops: a batch whose run has not started starts none. */
  signal: AbortSignal;
}

/**
 * How a batch went: a run made (its exit code); nothing new to run; a file changed while the
 * manifest was read (taken again once settled); not run (said already; tried again after
 * `rescanMs`); the watch stopped first.
 */
export type BatchOutcome = { exit: number } | "nothing-new" | "changed" | "failed" | "stopped";

export interface FolderWatchOptions {
  manifest: WatchedManifest;
  /** Where the manifest's lease is held. */
  store: Store;
  clock: Clock;
  /** How long a file must stay the same before it is taken, ms. */
  settleMs: number;
  rescanMs?: number;
  /** Why a file at rest is not whole yet (`notWholeYet`); undefined when it is. */
  notWhole(file: string): Promise<string | undefined>;
  /** Runs a batch; the manifest's lease is held. */
  runBatch(batch: Batch): Promise<BatchOutcome>;
  /** One plain line for the log. */
  log(line: string): void;
  /** Lease holder and liveness, injected by tests; default this process. */
  lease?: { holder?: LeaseHolder; isGone?: (lease: LeaseRow) => boolean };
}

export class FolderWatch {
  readonly #options: FolderWatchOptions;
  readonly #rule: SettleRule;
  readonly #events: FolderEvents;
  readonly #stop = new AbortController();
  readonly #rescanMs: number;
  /** No batch starts before this time (one could not run). */
  #quietUntil = Number.NEGATIVE_INFINITY;
  #lastExit: number | undefined;

  constructor(options: FolderWatchOptions) {
    this.#options = options;
    this.#rule = new SettleRule(options.settleMs);
    this.#rescanMs = options.rescanMs ?? RESCAN_MS;
    const { dir, globs } = options.manifest;
    this.#events = new FolderEvents(watchedFolders(dir, globs));
  }

  /** Watches until `stop()`; `interrupted` when a run was under way and stopped. */
  async run(): Promise<{ interrupted: boolean }> {
    const { clock } = this.#options;
    try {
      while (!this.#stopped) {
        const seen = this.#events.count;
        await this.#look();
        const now = clock.now();
        if (now >= this.#quietUntil && this.#rule.ready(now)) await this.#batch();
        else await this.#wait(seen);
      }
    } finally {
      this.#events.close();
    }
    return { interrupted: this.#lastExit === INTERRUPTED };
  }

  /** Ends the loop: no new batch; a run under way stops by its own signal handling. */
  stop(): void {
    this.#stop.abort();
  }

  get #stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Lists the globs, then checks the format of each file that came to rest. */
  async #look(): Promise<void> {
    const { clock, manifest, log } = this.#options;
    this.#events.ensure();
    try {
      this.#rule.observe(scanFiles(manifest.dir, manifest.globs), clock.now());
    } catch (error) {
      // A folder it may not read, say: what was seen stands, and the next look tries again.
      log(
        `${manifest.name}: cannot list ${manifest.globs.join(", ")}: ${coerceError(error).message}`,
      );
      return;
    }
    for (const { file, signature } of this.#rule.toCheck(clock.now())) {
      if (this.#stopped) return;
      const problem = await this.#options.notWhole(file);
      if (this.#rule.checked(file, signature, problem) && problem !== undefined)
        log(
          `${manifest.name}: ${file} has not changed for ${this.#options.settleMs / 1000} s but is not whole: ${problem}; new files wait until it is whole or removed`,
        );
    }
  }

  /** Until an event after the `seen`-th, the next settle deadline, the next rescan, or a stop. */
  async #wait(seen: number): Promise<void> {
    const { clock } = this.#options;
    const now = clock.now();
    const deadline = Math.min(
      this.#rule.nextDeadline(now) ?? Number.POSITIVE_INFINITY,
      now + this.#rescanMs,
      this.#quietUntil > now ? this.#quietUntil : Number.POSITIVE_INFINITY,
    );
    const woken = new AbortController();
    const signal = AbortSignal.any([this.#stop.signal, woken.signal]);
    const byEvent = this.#events.changedSince(seen, signal).then(() => true);
    const byTime = clock.sleep(Math.max(0, deadline - now), signal).then(
      () => false,
      () => false,
    );
    const event = await Promise.race([byEvent, byTime]);
    woken.abort();
    if (event) await clock.sleep(GATHER_MS, this.#stop.signal).catch(() => {});
  }

  /** Takes the lease (waiting while another run holds it), looks again, and runs a batch. */
  async #batch(): Promise<void> {
    const { clock, manifest, log } = this.#options;
    const lease = await this.#takeLease();
    if (lease === undefined) return;
    let outcome: BatchOutcome = "stopped";
    let snapshot: Map<string, Signature> | undefined;
    try {
      // What landed while the lease was awaited belongs in this batch, once it is settled too.
      await this.#look();
      if (this.#stopped || !this.#rule.ready(clock.now())) return;
      const files = this.#rule.arrivals();
      snapshot = this.#rule.snapshot();
      const taken = snapshot;
      outcome = await this.#options
        .runBatch({
          files,
          unchanged: () => sameFiles(scanFiles(manifest.dir, manifest.globs), taken),
          signal: this.#stop.signal,
        })
        .catch((error: unknown) => {
          log(`${manifest.name}: a batch could not run: ${coerceError(error).message}`);
          return "failed" as const;
        });
    } finally {
      await lease.release();
    }
    this.#lastExit = typeof outcome === "object" ? outcome.exit : undefined;
    if (outcome === "failed") {
      this.#quietUntil = clock.now() + this.#rescanMs;
      log(`${manifest.name}: the batch is tried again in ${this.#rescanMs / 1000} s`);
    } else if (outcome !== "changed" && outcome !== "stopped" && snapshot !== undefined) {
      this.#rule.taken(snapshot);
    }
  }

  async #takeLease(): Promise<Lease | undefined> {
    const { store, clock, manifest, log } = this.#options;
    let said = false;
    for (;;) {
      const lease = await tryLease(store, manifest.name, clock, {
        ...this.#options.lease,
        onLost: () =>
          log(
            `${manifest.name}: lost its lease to another process (this one stalled past the lease's expiry)`,
          ),
      });
      if ("release" in lease) return lease;
      if (!said) {
        const waiting = this.#rule.arrivals().length;
        log(
          `${manifest.name}: ${plural(waiting, "file")} wait: another run of ${manifest.name} holds its lease (${describeHolder(lease.heldBy, clock.now())})`,
        );
        said = true;
      }
      try {
        await clock.sleep(LEASE_POLL_MS, this.#stop.signal);
      } catch {
        return undefined;
      }
    }
  }
}

function sameFiles(
  now: ReadonlyMap<string, Signature>,
  taken: ReadonlyMap<string, Signature>,
): boolean {
  return now.size === taken.size && [...now].every(([file, sig]) => taken.get(file) === sig);
}
