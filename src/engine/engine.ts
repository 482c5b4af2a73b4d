import { setMaxListeners } from "node:events";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import PQueue from "p-queue";
import type { Clock } from "../core/clock.js";
import { ErrorCode } from "../core/errors.js";
import { processAlive, sweepPartials } from "../core/fs.js";
import type { Random } from "../core/random.js";
import type { CheckedJob } from "../families/index.js";
import {
  type GatewayClient,
  GatewayError,
  isRetryable,
  mayHaveArrived,
  outputLinks,
  type RetryPolicy,
  type TaskRecord,
  withRetry,
} from "../gateway/index.js";
import type { ManifestSettings } from "../manifest/index.js";
import { type JobRow, JobState, type OutputRow, type Store } from "../store/index.js";
import { recordDependants, recordSkipped } from "./dependants.js";
import type { Emit, RunEnd, StateCounts } from "./events.js";
import { fileMatches, outputPath, partialDir, writeWhole } from "./files.js";
import { jobGroups } from "./job-groups.js";
import { SubmitPace } from "./pace.js";
import { type PacedCallDeps, pacedCall } from "./paced-call.js";
import { type OutputVerdict, type PostProcess, recordVerdicts } from "./post-process.js";
import { provenanceText } from "./provenance.js";
import { callTextJob, recordTextAnswer } from "./text-jobs.js";

export interface EngineOptions {
  store: Store;
  client: GatewayClient;
  runId: number;
  settings: ManifestSettings;
  /** The run's output folder (resolved). */
  outputDir: string;
  baseUrl: string;
  /** Gateway seconds per real second (the simulator's); poll and retry timings are divided by it. */
  timeScale: number;
  clock: Clock;
  random: Random;
  /** `from:` jobs by the id of the job they follow. */
  templates: Map<string, CheckedJob[]>;
  /** Redo jobs already done. */
  force: boolean;
  maxDownloadBytes: number;
  emit: Emit;
  /** Checks and thumbnails between downloaded and done; without it jobs are done once downloaded. */
  postprocess?: PostProcess;
}

interface Running {
  row: JobRow;
  nextPollAt: number;
}

/** A process's claim on a job: who it is, so another process can tell a live claim from a crash. */
const OWNER = `${process.pid}@${hostname()}`;

/** Submit requests in flight at once (the pace decides how fast they start). */
export const SUBMIT_CONCURRENCY = 16;

/** Completed jobs allowed to wait for a download slot before submits pause. */
const DOWNLOAD_BACKLOG = 256;

/**
 * One run: submits pending jobs (paced, within each lane's in-flight cap and the budget),
 * polls what the gateway holds in batches, downloads every output as soon as its task
 * completes (earliest expiry first), finishes jobs and starts their `from:` dependants.
 * Every step is a guarded transition in the store, so a crash loses at most the submits in
 * flight. `stop()` stops submitting and returns once state is recorded.
 */
export class Engine {
  readonly #o: EngineOptions;
  readonly #pending: { image: JobRow[]; video: JobRow[] } = { image: [], video: [] };
  readonly #running = new Map<string, Running>();
  readonly #submitting = { image: 0, video: 0 };
  readonly #runningByLane = { image: 0, video: 0 };
  readonly #submits = new PQueue({ concurrency: SUBMIT_CONCURRENCY });
  readonly #downloads: PQueue;
  readonly #pace: SubmitPace;
  readonly #retry: RetryPolicy;
  readonly #abort = new AbortController();
  #stopping: RunEnd | undefined;
  #spent = 0;
  /** Estimated cost of the submits under way. */
  #reserved = 0;
  #unknownSubmits = 0;
  #wake: (() => void) | undefined;
  /** Keys this engine has taken on, so a dependant is started once. */
  readonly #known = new Set<string>();
  /** Dependants being taken on (their files checked) right now. */
  #adopting = 0;
  /** Jobs in post-processing, until their outcome is recorded. */
  readonly #checking = new Set<Promise<void>>();

  constructor(options: EngineOptions) {
    this.#o = options;
    // Every wait of the run listens to this one signal.
    setMaxListeners(0, this.#abort.signal);
    const { settings, timeScale, clock, store, baseUrl } = options;
    this.#downloads = new PQueue({ concurrency: settings.limits.downloads });
    const perSecond = (settings.limits.submitRate.count * 1000) / settings.limits.submitRate.perMs;
    this.#pace = new SubmitPace(clock, perSecond, store.learnedRate(baseUrl) ?? perSecond);
    this.#retry = {
      attempts: settings.retry.attempts,
      minDelayMs: settings.retry.minDelayMs / timeScale,
      maxDelayMs: settings.retry.maxDelayMs / timeScale,
    };
  }

  /** Stops submitting (Ctrl-C): what is recorded stays recorded; `run()` returns soon. */
  stop(): void {
    this.#halt("interrupted", "interrupted: no new submits; everything so far is recorded");
    this.#abort.abort();
  }

  async run(): Promise<{
    end: RunEnd;
    counts: StateCounts;
    spent: number;
    unknownSubmits: number;
  }> {
    const { store, runId, emit } = this.#o;
    // Partial downloads of a process that was killed will never be finished: clear them.
    sweepPartials(partialDir(this.#o.outputDir));
    const rows = store.jobsOf(runId);
    let alreadyDone = 0;
    for (const row of rows) {
      // A dependant may have been taken on already, by its upstream's adoption.
      if (this.#known.has(row.key)) {
        if (row.state === JobState.Done) alreadyDone += 1;
        continue;
      }
      // A dependant not yet sent waits for its upstream, whose adoption or finish binds it
      // afresh and takes it on (its upstream may be downloading or being redone).
      if (row.upstream_key !== null && row.state === JobState.Pending) continue;
      this.#known.add(row.key);
      if (await this.#adopt(row)) alreadyDone += 1;
    }
    emit({
      type: "run:started",
      runId,
      jobs: rows.length,
      alreadyDone,
      name: this.#o.settings.name,
      outputDir: this.#o.outputDir,
      maxCost: this.#o.settings.limits.maxCost ?? null,
      spent: round(this.#spent),
      groups: jobGroups(rows),
    });
    const pollEvery = Math.max(1, this.#o.settings.poll.everyMs / this.#o.timeScale);
    const tick = Math.min(50, Math.max(2, pollEvery / 4));
    while (!this.#abort.signal.aborted) {
      this.#fillSubmits();
      await this.#pollDue();
      if (this.#idle()) break;
      await this.#sleep(tick);
    }
    if (this.#abort.signal.aborted) {
      // Interrupted: what has not started stays as recorded; what runs stops at its signal.
      this.#submits.clear();
      this.#downloads.clear();
    }
    await Promise.all([this.#downloads.onIdle(), this.#submits.onIdle()]);
    // Downloads are over, so nothing new enters post-processing; its outcomes are recorded.
    await this.#o.postprocess?.drain();
    await Promise.all(this.#checking);
    store.saveLearnedRate(this.#o.baseUrl, this.#pace.rate);
    const { counts, spent } = this.#tally();
    const failed =
      (counts.failed ?? 0) + (counts.rejected ?? 0) + (counts.expired ?? 0) + (counts.skipped ?? 0);
    const end: RunEnd = this.#stopping ?? (failed > 0 ? "failed" : "done");
    emit({
      type: "run:finished",
      end,
      counts,
      spent,
      unknownSubmits: this.#unknownSubmits,
    });
    return { end, counts, spent, unknownSubmits: this.#unknownSubmits };
  }

  // --- start: take each job of the run from where the store left it

  /** Puts a recorded job where it belongs; true when it is done already. */
  async #adopt(row: JobRow): Promise<boolean> {
    const { store, clock, force } = this.#o;
    const now = clock.now();
    switch (row.state) {
      case JobState.Cancelled:
        if (store.move(row.key, JobState.Cancelled, JobState.Pending, { reason: null }, now))
          this.#queue({ ...row, state: JobState.Pending });
        return false;
      case JobState.Pending:
        // A stand-in for a failed upstream's dependants waits for that upstream's outcome.
        if (row.placeholder !== 1) this.#queue(row);
        return false;
      case JobState.Submitting: {
        // A live process is still sending it; a dead one left the outcome unknown.
        if (row.claimed_by !== OWNER && isAlive(row.claimed_by)) return false;
        this.#unknownSubmits += 1;
        const patch = { claimed_by: null, unknown_submits: row.unknown_submits + 1 };
        if (store.move(row.key, JobState.Submitting, JobState.Pending, patch, now))
          this.#queue({ ...row, ...patch, state: JobState.Pending });
        return false;
      }
      case JobState.Submitted:
      case JobState.Processing:
        this.#track(row, now);
        return false;
      case JobState.Completed:
        this.#queueDownloads(row, true);
        return false;
      case JobState.Downloaded:
        this.#finish(row);
        return false;
      case JobState.Done:
        return this.#adoptDone(row, force);
      default:
        return false;
    }
  }

  async #adoptDone(row: JobRow, force: boolean): Promise<boolean> {
    const { store, clock } = this.#o;
    const now = clock.now();
    const outputs = store.outputsOf(row.key);
    if (!force) {
      let intact = true;
      for (const output of outputs)
        if (!(await fileMatches(output.path, output.bytes, output.sha256))) intact = false;
      if (intact && this.#o.postprocess !== undefined && reviewImagesGone(outputs)) {
        // The files are whole; checking them again makes their thumbnails and posters again.
        if (store.move(row.key, JobState.Done, JobState.Downloaded, { done_at: null }, now)) {
          this.#finish({ ...row, state: JobState.Downloaded });
          return false;
        }
      }
      if (intact) {
        this.#spent += row.cost ?? 0;
        this.#startDependants(row);
        return true;
      }
      // Files gone or changed: download again while the links work, else redo.
      if (
        outputs.length > 0 &&
        outputs.every((o) => o.url !== null && (o.expires_at ?? Infinity) > now)
      ) {
        for (const output of outputs)
          store.markOutput(row.key, output.idx, {
            state: "pending",
            path: null,
            sha256: null,
            bytes: null,
          });
        if (store.move(row.key, JobState.Done, JobState.Completed, { done_at: null }, now))
          this.#queueDownloads({ ...row, state: JobState.Completed }, true);
        return false;
      }
    }
    store.transaction(() => {
      store.clearOutputs(row.key);
      store.move(
        row.key,
        JobState.Done,
        JobState.Pending,
        { task_id: null, done_at: null, cost: null, reason: null },
        now,
      );
    });
    this.#queue({ ...row, state: JobState.Pending, task_id: null });
    return false;
  }

  #queue(row: JobRow): void {
    (row.lane === "video" ? this.#pending.video : this.#pending.image).push(row);
  }

  // --- submits

  #fillSubmits(): void {
    if (this.#stopping !== undefined) return;
    // Backpressure: results waiting for a download slot (or for their checks) are memory and a
    // deadline; let them catch up before asking the gateway for more.
    if (this.#downloads.size > DOWNLOAD_BACKLOG || this.#checking.size > DOWNLOAD_BACKLOG) return;
    const limits = this.#o.settings.limits;
    for (const lane of ["image", "video"] as const) {
      const cap = lane === "video" ? limits.maxInFlightVideo : limits.maxInFlight;
      const queue = this.#pending[lane];
      while (queue.length > 0 && this.#inFlight(lane) < cap && this.#stopping === undefined) {
        const row = queue[0] as JobRow;
        if (!this.#withinBudget(row)) {
          this.#halt(
            "budget",
            `budget reached: max_cost ${limits.maxCost} (spent ${round(this.#spent)} plus tasks running)`,
          );
          return;
        }
        queue.shift();
        this.#submitting[lane] += 1;
        this.#reserved += row.estimated_cost ?? 0;
        this.#submits
          .add(() => this.#submit(row))
          .catch((error: unknown) =>
            this.#fail(row, JobState.Submitting, `submit failed: ${(error as Error).message}`),
          )
          .finally(() => {
            this.#submitting[lane] -= 1;
            this.#reserved -= row.estimated_cost ?? 0;
            this.#wake?.();
          });
      }
    }
  }

  #inFlight(lane: "image" | "video"): number {
    return this.#runningByLane[lane] + this.#submitting[lane];
  }

  /** Starts polling a task the gateway holds. */
  #track(row: JobRow, nextPollAt: number): void {
    if (!this.#running.has(row.key)) this.#runningByLane[laneOf(row)] += 1;
    this.#running.set(row.key, { row, nextPollAt });
  }

  #untrack(key: string): void {
    const task = this.#running.get(key);
    if (task === undefined) return;
    this.#running.delete(key);
    this.#runningByLane[laneOf(task.row)] -= 1;
  }

  #withinBudget(row: JobRow): boolean {
    const max = this.#o.settings.limits.maxCost;
    if (max === undefined) return true;
    let committed = this.#spent + this.#reserved;
    for (const task of this.#running.values()) committed += task.row.estimated_cost ?? 0;
    return committed < max && committed + (row.estimated_cost ?? 0) <= max;
  }

  async #submit(row: JobRow): Promise<void> {
    const { store, clock, client, emit, settings, timeScale } = this.#o;
    await this.#pace.acquire(this.#abort.signal).catch(() => undefined);
    if (this.#abort.signal.aborted) {
      this.#queue(row);
      return;
    }
    const claimed = store.move(
      row.key,
      JobState.Pending,
      JobState.Submitting,
      { claimed_by: OWNER, attempts: row.attempts + 1 },
      clock.now(),
    );
    if (!claimed) return; // another process took it
    emit({ type: "task:submitting", key: row.key, job: row.job_id, label: row.label });
    if (row.lane === "text") {
      await this.#submitText(row);
      return;
    }
    const body = JSON.parse(row.request) as Record<string, unknown>;
    const tally = { unknown: 0 };
    let receipt: Awaited<ReturnType<GatewayClient["submit"]>>;
    try {
      receipt = await pacedCall(
        `submit ${row.label}`,
        () => client.submit(row.endpoint, body),
        this.#callDeps(),
        tally,
      );
    } catch (error) {
      this.#unknownSubmits += tally.unknown + (mayHaveArrived(error) ? 1 : 0);
      this.#submitFailed(row, error, tally.unknown);
      return;
    }
    const unknown = tally.unknown;
    this.#unknownSubmits += unknown;
    this.#pace.succeeded(receipt.rateLimitPerSecond);
    const now = clock.now();
    const to = receipt.status === "processing" ? JobState.Processing : JobState.Submitted;
    const nextPollAt = now + settings.poll.firstAfterMs / timeScale;
    const patch = {
      task_id: receipt.taskId,
      submitted_at: now,
      next_poll_at: nextPollAt,
      claimed_by: null,
      unknown_submits: row.unknown_submits + unknown,
    };
    // The commit point: from here the task is polled, never submitted again.
    if (store.move(row.key, JobState.Submitting, to, patch, now)) {
      const updated = { ...row, ...patch, state: to };
      this.#track(updated, nextPollAt);
      emit({
        type: "task:submitted",
        key: row.key,
        job: row.job_id,
        label: row.label,
        taskId: receipt.taskId,
      });
    }
  }

  #submitFailed(row: JobRow, error: unknown, unknown: number): void {
    const { store, clock } = this.#o;
    const now = clock.now();
    if (error instanceof GatewayError && error.code === ErrorCode.HttpPaymentRequired) {
      // Not billed and not the job's fault: it waits for a later run.
      store.move(
        row.key,
        JobState.Submitting,
        JobState.Pending,
        { claimed_by: null, reason: error.message },
        now,
      );
      this.#halt("balance", `the gateway balance ran out: ${error.message}`);
      return;
    }
    if (this.#abort.signal.aborted) {
      store.move(
        row.key,
        JobState.Submitting,
        JobState.Pending,
        { claimed_by: null, unknown_submits: row.unknown_submits + unknown },
        now,
      );
      return;
    }
    const refused =
      error instanceof GatewayError && !isRetryable(error) && error.status !== undefined;
    this.#fail(
      row,
      JobState.Submitting,
      (error as Error).message,
      refused ? JobState.Rejected : JobState.Failed,
    );
  }

  async #submitText(row: JobRow): Promise<void> {
    const { store, clock, emit } = this.#o;
    const tally = { unknown: 0 };
    try {
      const result = await callTextJob(row, {
        client: this.#o.client,
        paced: (call) => pacedCall(`text ${row.label}`, call, this.#callDeps(), tally),
        onProgress: (chars) =>
          emit({ type: "text:progress", key: row.key, label: row.label, chars }),
        outputDir: this.#o.outputDir,
        tempDir: partialDir(this.#o.outputDir),
      });
      this.#unknownSubmits += tally.unknown;
      this.#pace.succeeded();
      if (!recordTextAnswer(store, row, result, clock.now())) return;
      for (const file of result.files) this.#emitDownloaded(row, file);
      this.#finish({ ...row, state: JobState.Downloaded });
    } catch (error) {
      this.#unknownSubmits += tally.unknown + (mayHaveArrived(error) ? 1 : 0);
      this.#submitFailed(row, error, tally.unknown);
    }
  }

  #emitDownloaded(row: JobRow, file: { path: string; bytes: number }): void {
    this.#o.emit({
      type: "output:downloaded",
      key: row.key,
      job: row.job_id,
      label: row.label,
      path: file.path,
      bytes: file.bytes,
    });
  }

  #callDeps(): PacedCallDeps {
    const { clock, random, emit } = this.#o;
    return {
      pace: this.#pace,
      retry: this.#retry,
      clock,
      random,
      emit,
      signal: this.#abort.signal,
    };
  }

  // --- polling

  async #pollDue(): Promise<void> {
    const { clock, client, settings } = this.#o;
    const now = clock.now();
    const due = [...this.#running.values()].filter((task) => task.nextPollAt <= now);
    for (let start = 0; start < due.length; start += settings.poll.batchSize) {
      const slice = due.slice(start, start + settings.poll.batchSize);
      let batch: Awaited<ReturnType<GatewayClient["getTasks"]>>;
      try {
        batch = await withRetry(
          () => client.getTasks(slice.map((t) => t.row.task_id as string)),
          this.#retry,
          {
            clock,
            random: this.#o.random,
            signal: this.#abort.signal,
            onRetry: (error, delayMs) =>
              this.#o.emit({ type: "gateway:retry", what: "poll", delayMs, reason: error.message }),
          },
        );
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        // Polling failed for now; the tasks are still the gateway's. Try again later.
        const later = clock.now() + settings.poll.everyMs / this.#o.timeScale;
        for (const task of slice) task.nextPollAt = later;
        this.#o.emit({
          type: "gateway:retry",
          what: "poll",
          delayMs: later - clock.now(),
          reason: (error as Error).message,
        });
        continue;
      }
      this.#applyPolls(slice, batch.records, new Set(batch.unknown));
    }
  }

  #applyPolls(slice: Running[], records: Map<string, TaskRecord>, unknown: Set<string>): void {
    const { store, clock, settings, timeScale, emit } = this.#o;
    const now = clock.now();
    const nextPollAt = now + settings.poll.everyMs / timeScale;
    const completed: JobRow[] = [];
    // One poll round, one transaction.
    store.transaction(() => {
      for (const task of slice) {
        const { row } = task;
        const taskId = row.task_id as string;
        const record = records.get(taskId);
        const polls = row.polls + 1;
        row.polls = polls;
        if (record === undefined) {
          if (unknown.has(taskId))
            this.#fail(
              row,
              [JobState.Submitted, JobState.Processing],
              `task ${taskId} does not exist or has expired at the gateway`,
              JobState.Expired,
            );
          else task.nextPollAt = nextPollAt;
          continue;
        }
        if (record.status === "completed") {
          const links = outputLinks(record);
          if (links.length === 0) {
            this.#fail(
              row,
              [JobState.Submitted, JobState.Processing],
              "the task completed but its result holds no output URL",
            );
            continue;
          }
          const patch = {
            cost: record.cost,
            completed_at: now,
            progress: 100,
            polls,
            next_poll_at: null,
          };
          store.setOutputs(row.key, links);
          if (
            store.move(
              row.key,
              [JobState.Submitted, JobState.Processing],
              JobState.Completed,
              patch,
              now,
            )
          ) {
            this.#untrack(row.key);
            this.#spent += record.cost ?? 0;
            emit({
              type: "task:completed",
              key: row.key,
              job: row.job_id,
              label: row.label,
              cost: record.cost,
              outputs: links.length,
            });
            completed.push({ ...row, ...patch, state: JobState.Completed });
          } else {
            // Another process on this database got there first; it carries on with the job.
            this.#untrack(row.key);
          }
        } else if (record.status === "failed") {
          this.#fail(
            row,
            [JobState.Submitted, JobState.Processing],
            `the task failed: ${record.errorMessage ?? "no reason given"}`,
          );
        } else {
          const progress = record.progress ?? row.progress ?? 0;
          const noted =
            record.status === "processing" && row.state === JobState.Submitted
              ? store.move(
                  row.key,
                  JobState.Submitted,
                  JobState.Processing,
                  { started_at: now, progress, polls, next_poll_at: nextPollAt },
                  now,
                )
              : store.notePoll(row.key, { progress, polls, next_poll_at: nextPollAt });
          if (!noted) {
            this.#untrack(row.key);
            continue;
          }
          if (record.status === "processing") row.state = JobState.Processing;
          if (progress !== row.progress)
            emit({
              type: "task:progress",
              key: row.key,
              job: row.job_id,
              label: row.label,
              progress,
            });
          row.progress = progress;
          task.nextPollAt = nextPollAt;
        }
      }
    });
    for (const row of completed) this.#queueDownloads(row);
  }

  // --- downloads

  /** `refresh`: links recorded by an earlier process; ask the gateway for current ones first. */
  #queueDownloads(row: JobRow, refresh = false): void {
    const outputs = this.#o.store.outputsOf(row.key);
    const soonest = Math.min(...outputs.map((o) => o.expires_at ?? Number.MAX_SAFE_INTEGER));
    // Earliest deadline first: p-queue runs higher priorities first.
    const priority = -Math.floor(soonest / 1000);
    this.#downloads
      .add(() => this.#download(row, refresh), { priority })
      .catch((error: unknown) =>
        this.#fail(row, JobState.Completed, `download failed: ${(error as Error).message}`),
      )
      .finally(() => this.#wake?.());
  }

  async #download(row: JobRow, refresh: boolean): Promise<void> {
    const { store, clock, client, outputDir, emit } = this.#o;
    if (refresh) await this.#refreshLinks(row);
    const outputs = store.outputsOf(row.key);
    for (const output of outputs) {
      if (output.state === "downloaded") continue;
      if (this.#abort.signal.aborted) return;
      if (output.url === null || (output.expires_at !== null && output.expires_at <= clock.now())) {
        store.markOutput(row.key, output.idx, {
          state: "expired",
          reason: "the result link expired before it was downloaded",
        });
        this.#fail(
          row,
          JobState.Completed,
          "the result link expired before it was downloaded",
          JobState.Expired,
        );
        return;
      }
      const url = output.url;
      let file: Awaited<ReturnType<GatewayClient["download"]>>;
      try {
        file = await withRetry(
          () =>
            client.download(
              url,
              (type) =>
                outputPath(outputDir, row.job_id, row.label, output.idx, outputs.length, type),
              {
                maxBytes: this.#o.maxDownloadBytes,
                kind: row.lane === "video" ? "video" : "image",
                tempDir: partialDir(outputDir),
              },
            ),
          this.#retry,
          {
            clock,
            random: this.#o.random,
            signal: this.#abort.signal,
            onRetry: (error, delayMs) =>
              emit({
                type: "gateway:retry",
                what: `download ${row.label}`,
                delayMs,
                reason: error.message,
              }),
          },
        );
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        if (error instanceof GatewayError && error.code === ErrorCode.LinkExpired) {
          store.markOutput(row.key, output.idx, { state: "expired", reason: error.message });
          this.#fail(row, JobState.Completed, error.message, JobState.Expired);
          return;
        }
        throw error;
      }
      // With post-processing, the sidecar is written once its checks are known.
      if (this.#o.postprocess === undefined)
        await writeWhole(
          `${file.path}.json`,
          provenanceText(row, output.idx, file),
          partialDir(outputDir),
        );
      const last = outputs.every((o) => o.idx === output.idx || o.state === "downloaded");
      output.state = "downloaded";
      // The file, and when it is the last one the job's moves, commit together.
      store.transaction(() => {
        store.markOutput(row.key, output.idx, {
          state: "downloaded",
          path: file.path,
          bytes: file.bytes,
          sha256: file.sha256,
          content_type: file.contentType,
        });
        this.#emitDownloaded(row, file);
        if (last && store.move(row.key, JobState.Completed, JobState.Downloaded, {}, clock.now())) {
          this.#finish({ ...row, state: JobState.Downloaded });
        }
      });
    }
  }

  /**
   * Links recorded by an earlier process may point elsewhere now (a simulator restarted on
   * another port, a re-mirrored result): the task's current record says. Kept as they are
   * when the gateway no longer knows the task.
   */
  async #refreshLinks(row: JobRow): Promise<void> {
    if (row.task_id === null) return;
    try {
      const record = await this.#o.client.getTask(row.task_id);
      if (record.status !== "completed") return;
      outputLinks(record).forEach((link, idx) => {
        this.#o.store.markOutput(row.key, idx, { url: link.url, expires_at: link.expiresAt });
      });
    } catch {
      // The recorded links are all there is.
    }
  }

  // --- endings

  /** Downloaded → post-processing (checks, thumbnails) → done; then its dependants start. */
  #finish(row: JobRow): void {
    const { postprocess, store, emit } = this.#o;
    if (postprocess === undefined || row.lane === "text") {
      this.#done(row);
      return;
    }
    // Interrupted: it stays downloaded, and the resumed run checks it.
    if (this.#abort.signal.aborted) return;
    emit({ type: "job:postprocessing", key: row.key, job: row.job_id, label: row.label });
    const checking: Promise<void> = postprocess
      .process(row, store.outputsOf(row.key))
      .then(({ verdicts, onFail }) => this.#checked(row, verdicts, onFail))
      .catch((error: unknown) => {
        if (!this.#abort.signal.aborted)
          this.#fail(row, JobState.Downloaded, `checks could not run: ${(error as Error).message}`);
      })
      .finally(() => {
        this.#checking.delete(checking);
        this.#wake?.();
      });
    this.#checking.add(checking);
  }

  /** A failed check fails the job, or with `on_fail: retry` and attempts left submits it again. */
  #checked(row: JobRow, verdicts: OutputVerdict[], onFail: "report" | "retry"): void {
    const { store, clock, emit, settings } = this.#o;
    // The checks and the move to done commit together.
    const reason = store.transaction(() => {
      const failed = recordVerdicts(store, row, verdicts, emit);
      if (failed === undefined) this.#done(row);
      return failed;
    });
    if (reason === undefined) return;
    const attempts = store.job(row.key)?.attempts ?? row.attempts;
    if (onFail === "report" || attempts >= settings.retry.attempts) {
      this.#fail(row, JobState.Downloaded, reason);
      return;
    }
    const patch = { task_id: null, reason, progress: null, completed_at: null, next_poll_at: null };
    const moved = store.transaction(() => {
      store.clearOutputs(row.key);
      return store.move(row.key, JobState.Downloaded, JobState.Pending, patch, clock.now());
    });
    if (moved) this.#queue({ ...row, ...patch, attempts, state: JobState.Pending });
  }

  #done(row: JobRow): void {
    const { store, clock, emit } = this.#o;
    if (
      !store.move(
        row.key,
        JobState.Downloaded,
        JobState.Done,
        { done_at: clock.now() },
        clock.now(),
      )
    )
      return;
    emit({ type: "job:done", key: row.key, job: row.job_id, label: row.label });
    this.#startDependants(row);
  }

  #startDependants(row: JobRow): void {
    const templates = this.#o.templates.get(row.job_id);
    if (templates === undefined) return;
    const { store, runId, clock, emit } = this.#o;
    for (const { row: stored, fresh, problem } of recordDependants(
      store,
      runId,
      templates,
      row,
      clock.now(),
    )) {
      if (this.#known.has(stored.key)) continue;
      this.#known.add(stored.key);
      if (fresh) {
        emit({
          type: "job:added",
          key: stored.key,
          job: stored.job_id,
          label: stored.label,
          upstream: row.label,
          family: stored.family,
        });
      }
      if (problem !== null && stored.state === JobState.Pending) {
        this.#fail(stored, JobState.Pending, problem);
        continue;
      }
      // Taken on like any recorded job: pending is queued, running is polled, done is checked.
      this.#adopting += 1;
      this.#adopt(stored)
        .catch((error: unknown) =>
          this.#fail(stored, stored.state, `cannot resume: ${(error as Error).message}`),
        )
        .finally(() => {
          this.#adopting -= 1;
          this.#wake?.();
        });
    }
  }

  /** A failed upstream's dependants are recorded skipped, with its reason. */
  #skipDependants(row: JobRow, reason: string): void {
    const { store, runId, clock, emit, templates } = this.#o;
    if (!templates.has(row.job_id)) return;
    for (const skipped of recordSkipped(store, runId, templates, row, reason, clock.now())) {
      const { key, job_id: job, label, family } = skipped.row;
      if (skipped.fresh) emit({ type: "job:added", key, job, label, upstream: row.label, family });
      emit({
        type: "job:failed",
        key,
        job,
        label,
        state: JobState.Skipped,
        reason: skipped.reason,
      });
    }
  }

  #fail(
    row: JobRow,
    from: JobState | JobState[],
    reason: string,
    to: JobState = JobState.Failed,
  ): void {
    const { store, clock, emit } = this.#o;
    // Whoever moved it, it is no longer this engine's to poll.
    this.#untrack(row.key);
    if (
      store.move(row.key, from, to, { reason, claimed_by: null, next_poll_at: null }, clock.now())
    ) {
      emit({
        type: "job:failed",
        key: row.key,
        job: row.job_id,
        label: row.label,
        state: to,
        reason,
      });
      this.#skipDependants(row, reason);
    }
  }

  #halt(reason: RunEnd, message: string): void {
    if (this.#stopping !== undefined) return;
    this.#stopping = reason;
    this.#o.emit({ type: "run:stopping", reason, message });
    this.#wake?.();
  }

  #idle(): boolean {
    const nothingToSubmit =
      this.#stopping !== undefined ||
      (this.#pending.image.length === 0 && this.#pending.video.length === 0);
    return (
      nothingToSubmit &&
      this.#adopting === 0 &&
      this.#checking.size === 0 &&
      this.#running.size === 0 &&
      this.#submits.size === 0 &&
      this.#submits.pending === 0 &&
      this.#downloads.size === 0 &&
      this.#downloads.pending === 0
    );
  }

  async #sleep(ms: number): Promise<void> {
    await Promise.race([
      this.#o.clock.sleep(ms, this.#abort.signal).catch(() => undefined),
      new Promise<void>((resolve) => {
        this.#wake = resolve;
      }),
    ]);
    this.#wake = undefined;
  }

  /** Jobs of the run by state, and what they cost, from the store. */
  #tally(): { counts: StateCounts; spent: number } {
    const counts: StateCounts = {};
    let spent = 0;
    for (const row of this.#o.store.jobsOf(this.#o.runId)) {
      counts[row.state] = (counts[row.state] ?? 0) + 1;
      spent += row.cost ?? 0;
    }
    return { counts, spent: round(spent) };
  }
}

/** Whether a thumbnail or poster recorded for these outputs is no longer on disk. */
function reviewImagesGone(outputs: readonly OutputRow[]): boolean {
  return outputs.some((output) =>
    [output.thumbnail, output.poster].some((file) => file !== null && !existsSync(file)),
  );
}

/** Text calls share the image lane's cap: both are light next to video. */
function laneOf(row: JobRow): "image" | "video" {
  return row.lane === "video" ? "video" : "image";
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Whether the process named in a claim (`pid@host`) is alive on this machine. */
function isAlive(owner: string | null): boolean {
  if (owner === null) return false;
  const [pid, host] = owner.split("@");
  return host !== hostname() || processAlive(Number(pid));
}
