import { setMaxListeners } from "node:events";
import PQueue from "p-queue";
import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { sweepPartials } from "../core/fs.js";
import { roundMoney } from "../core/money.js";
import { partialDir } from "../core/output-files.js";
import { CLAIM_OWNER } from "../core/process.js";
import type { Random } from "../core/random.js";
import type { CheckedJob } from "../families/index.js";
import { type GatewayClient, withRetry } from "../gateway/index.js";
import type { ManifestSettings } from "../manifest/index.js";
import {
  FAILED_STATES,
  type Store,
  type TaskEvent,
  type TaskRow,
  TaskState,
  TRANSITIONS,
} from "../store/index.js";
import { Admission } from "./admission.js";
import { publish, type RunContext } from "./context.js";
import { recordDependants, recordSkipped } from "./dependants.js";
import { downloadOutputs } from "./download.js";
import type { Emit, RunEnd, StateCounts } from "./events.js";
import { jobGroups } from "./job-groups.js";
import { SubmitPace } from "./pace.js";
import { factsOf, placementOf } from "./placement.js";
import { Poller, pollOutcome } from "./poll.js";
import type { OutputVerdict, PostProcess } from "./post-process.js";
import { classifySubmitFailure, submitTask } from "./submit.js";
import { answerRow } from "./text-tasks.js";

export interface EngineOptions {
  /** The state database, through its port. */
  store: Store;
  /** The gateway client (the only code that speaks HTTP to it). */
  client: GatewayClient;
  /** The run whose tasks are recorded in the store already. */
  runId: number;
  /** The manifest's settings, in the gateway's time as this process sees it. */
  settings: ManifestSettings;
  /** The run's output folder (absolute). */
  outputDir: string;
  /** The gateway's base URL: the submit rate learned is kept under it. */
  baseUrl: string;
  clock: Clock;
  random: Random;
  /** `from:` jobs by the id of the job they follow. */
  templates: Map<string, CheckedJob[]>;
  /** Redo tasks already done. */
  force: boolean;
  /** Downloads larger than this many bytes are refused. */
  maxDownloadBytes: number;
  /** Told every event of the run, after the store has recorded it. */
  emit: Emit;
  /** Checks and thumbnails between downloaded and done; without it tasks are done once downloaded. */
  postprocess?: PostProcess;
}

export interface RunResult {
  end: RunEnd;
  counts: StateCounts;
  spent: number;
  unknownSubmits: number;
}

/** Submit requests in flight at once (the pace decides how fast they start). */
export const SUBMIT_CONCURRENCY = 16;

/** Completed tasks allowed to wait for a download slot (or checks) before submits pause. */
const DOWNLOAD_BACKLOG = 256;

/** A due poll waits at most this share of `poll.every` for others to share its batch call. */
const POLL_COALESCE_SHARE = 0.25;

/**
 * One run: submits pending tasks (paced, within each lane's in-flight cap and the budget),
 * polls what the gateway holds in batches, downloads every output as soon as its task
 * completes (earliest expiry first), checks it, and starts `from:` dependants. Every step is
 * a named transition of the store, published after it commits, so a crash loses at most the
 * submits in flight. `stop()` stops submitting and `run()` returns once state is recorded.
 */
export class Engine {
  readonly #options: EngineOptions;
  readonly #abort = new AbortController();
  readonly #admission: Admission;
  readonly #poller: Poller;
  readonly #submits = new PQueue({ concurrency: SUBMIT_CONCURRENCY });
  readonly #downloads: PQueue;
  /** Work under way outside the queues (endings, dependants); the run waits for it. */
  readonly #background = new Set<Promise<unknown>>();
  /** Keys this engine has taken on, so a dependant is started once. */
  readonly #takenOn = new Set<string>();
  #context: RunContext | undefined;
  #stopping: RunEnd | undefined;
  #unknownSubmits = 0;
  #checking = 0;
  #wake: (() => void) | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
    // Every wait of the run listens to this one signal.
    setMaxListeners(0, this.#abort.signal);
    const { limits, poll } = options.settings;
    this.#admission = new Admission(limits);
    this.#poller = new Poller({
      batchSize: poll.batchSize,
      coalesceMs: poll.everyMs * POLL_COALESCE_SHARE,
    });
    this.#downloads = new PQueue({ concurrency: limits.downloads });
  }

  /** Stops submitting (Ctrl-C): what is recorded stays recorded; `run()` returns soon. */
  stop(): void {
    this.#halt("interrupted", "interrupted: no new submits; everything so far is recorded");
    this.#abort.abort();
  }

  async run(): Promise<RunResult> {
    const { store, runId, settings, emit, outputDir, baseUrl } = this.#options;
    const context = await this.#openContext();
    // Partial downloads of a process that was killed will never be finished: clear them.
    sweepPartials(partialDir(outputDir));
    const tasks = await store.tasksOf(runId);
    let alreadyDone = 0;
    for (const task of tasks) {
      // A dependant may have been taken on already, by its upstream's placement.
      if (this.#takenOn.has(task.key)) {
        if (task.state === TaskState.Done) alreadyDone += 1;
        continue;
      }
      // A dependant not yet sent waits for its upstream, whose placement or ending binds it
      // afresh and takes it on (its upstream may be downloading or being redone).
      if (task.upstream_key !== null && task.state === TaskState.Pending) continue;
      this.#takenOn.add(task.key);
      if (await this.#takeOn(task)) alreadyDone += 1;
    }
    emit({
      type: "run:started",
      runId,
      jobs: tasks.length,
      alreadyDone,
      name: settings.name,
      outputDir,
      maxCost: settings.limits.maxCost ?? null,
      spent: roundMoney(this.#admission.spent),
      groups: jobGroups(tasks),
    });
    // Often enough to keep polls on time, rarely enough to cost nothing while waiting.
    const tick = Math.min(50, Math.max(2, settings.poll.everyMs / 4));
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
    await this.#options.postprocess?.drain();
    while (this.#background.size > 0) await Promise.all(this.#background);
    await store.saveLearnedRate(baseUrl, context.pace.rate);
    const summary = await store.runSummary(runId);
    const failed = FAILED_STATES.reduce((sum, state) => sum + (summary.states[state] ?? 0), 0);
    const end: RunEnd = this.#stopping ?? (failed > 0 ? "failed" : "done");
    const result = {
      end,
      counts: summary.states,
      spent: summary.spent,
      unknownSubmits: this.#unknownSubmits,
    };
    emit({ type: "run:finished", ...result });
    return result;
  }

  async #openContext(): Promise<RunContext> {
    const { store, settings, clock, baseUrl } = this.#options;
    const { submitRate } = settings.limits;
    const perSecond = (submitRate.count * 1000) / submitRate.perMs;
    this.#context = {
      ...this.#options,
      signal: this.#abort.signal,
      retry: {
        attempts: settings.retry.attempts,
        minDelayMs: settings.retry.minDelayMs,
        maxDelayMs: settings.retry.maxDelayMs,
      },
      pace: new SubmitPace(clock, perSecond, (await store.learnedRate(baseUrl)) ?? perSecond),
    };
    return this.#context;
  }

  get #run(): RunContext {
    if (this.#context === undefined) throw new Error("the engine is not running");
    return this.#context;
  }

  // --- taking on recorded tasks

  /** Puts a recorded task where it belongs (see `placementOf`); true when it is done already. */
  async #takeOn(task: TaskRow): Promise<boolean> {
    const { store, clock, force, postprocess } = this.#options;
    const now = clock.now();
    const facts = await factsOf(task, () => store.outputsOf(task.key), {
      now,
      force,
      ownClaim: CLAIM_OWNER,
      checksRun: postprocess !== undefined,
    });
    const placement = placementOf(task, facts);
    switch (placement) {
      case "queue":
        this.#admission.enqueue(task);
        return false;
      case "leave":
        return false;
      case "release-unknown":
        this.#unknownSubmits += 1;
        if (await store.releaseClaim(task, { unknownSubmits: 1 }, now))
          this.#admission.enqueue({
            ...task,
            state: TaskState.Pending,
            claimed_by: null,
            unknown_submits: task.unknown_submits + 1,
          });
        return false;
      case "poll":
        this.#admission.started(task);
        this.#poller.track(task, now);
        return false;
      case "download":
        await this.#queueDownloads(task, true);
        return false;
      case "check":
        this.#check(task);
        return false;
      case "done":
        this.#admission.commit(task.cost);
        await this.#startDependants(task);
        return true;
      case "recheck":
        if (await store.recheck(task, now)) this.#check({ ...task, state: TaskState.Downloaded });
        return false;
      case "redownload":
        if (await store.redownload(task, now))
          await this.#queueDownloads({ ...task, state: TaskState.Completed }, true);
        return false;
      case "redo":
        if (await store.requeue(task, [TaskState.Done], null, now))
          this.#admission.enqueue({ ...task, state: TaskState.Pending, task_id: null });
        return false;
      default: {
        const never: never = placement;
        throw new Error(`unknown placement ${String(never)}`);
      }
    }
  }

  // --- submits

  #fillSubmits(): void {
    if (this.#stopping !== undefined) return;
    // Backpressure: results waiting for a download slot (or for their checks) are memory and a
    // deadline; let them catch up before asking the gateway for more.
    if (this.#downloads.size > DOWNLOAD_BACKLOG || this.#checking > DOWNLOAD_BACKLOG) return;
    for (const lane of ["image", "video"] as const) {
      while (this.#stopping === undefined) {
        const task = this.#admission.take(lane);
        if (task === undefined) break;
        if (task === "budget") {
          const spent = roundMoney(this.#admission.spent);
          const max = this.#options.settings.limits.maxCost;
          this.#halt(
            "budget",
            `budget reached: max_cost ${max} (spent ${spent} plus tasks running)`,
          );
          return;
        }
        void this.#submits.add(() => this.#guard(this.#submit(task), task, "submit failed"));
      }
    }
  }

  async #submit(task: TaskRow): Promise<void> {
    const { store, clock, emit, settings } = this.#options;
    const context = this.#run;
    await context.pace.acquire(this.#abort.signal).catch(() => undefined);
    const claimed = this.#abort.signal.aborted
      ? undefined
      : await store.claimForSubmit(task, CLAIM_OWNER, clock.now());
    if (claimed === undefined) {
      // Interrupted before it left (it stays pending), or another process took it.
      this.#admission.ended(task);
      return;
    }
    publish(context, claimed.events);
    const sent = claimed.task;
    const outcome = await submitTask(sent, context, (chars) =>
      emit({ type: "text:progress", key: sent.key, label: sent.label, chars }),
    );
    this.#unknownSubmits += outcome.unknownSubmits;
    const now = clock.now();
    if (outcome.kind === "receipt") {
      const nextPollAt = now + settings.poll.firstAfterMs;
      const { taskId, status, unknownSubmits } = outcome;
      // The commit point: from here the task is polled, never submitted again.
      const events = await store.recordReceipts(
        [{ task: sent, taskId, status, nextPollAt, unknownSubmits }],
        now,
      );
      publish(context, events);
      if (events.length > 0)
        this.#poller.track({ ...sent, state: status, task_id: taskId }, nextPollAt);
      else this.#admission.ended(task);
      return;
    }
    this.#admission.ended(task);
    if (outcome.kind === "answer") {
      const { result } = outcome;
      const files = result.files.map((file) => ({ ...file, contentType: "text/plain" }));
      const recorded = await store.recordTextAnswer(sent, answerRow(result), files, now);
      publish(context, recorded.events);
      if (recorded.moved) this.#check({ ...sent, state: TaskState.Downloaded });
      return;
    }
    const failure = classifySubmitFailure(outcome.error, this.#abort.signal.aborted);
    if (failure.to !== "pending") {
      await this.#fail(sent, [TaskState.Submitting], failure.reason, failure.to);
      return;
    }
    await store.releaseClaim(
      sent,
      { reason: failure.reason, unknownSubmits: outcome.unknownSubmits },
      now,
    );
    if (failure.halt === "balance")
      this.#halt("balance", `the gateway balance ran out: ${failure.reason}`);
  }

  // --- polling

  async #pollDue(): Promise<void> {
    const { clock, client, settings, emit, random } = this.#options;
    for (const batch of this.#poller.due(clock.now())) {
      let answer: Awaited<ReturnType<GatewayClient["getTasks"]>>;
      try {
        answer = await withRetry(
          () => client.getTasks(batch.map((task) => task.task_id as string)),
          this.#run.retry,
          {
            clock,
            random,
            signal: this.#abort.signal,
            onRetry: (error, delayMs) =>
              emit({ type: "gateway:retry", what: "poll", delayMs, reason: error.message }),
          },
        );
      } catch (error) {
        if (this.#abort.signal.aborted) return;
        // Polling failed for now; the tasks are still the gateway's. Try again later.
        const later = clock.now() + settings.poll.everyMs;
        for (const task of batch) this.#poller.track(task, later);
        emit({
          type: "gateway:retry",
          what: "poll",
          delayMs: settings.poll.everyMs,
          reason: coerceError(error).message,
        });
        continue;
      }
      await this.#applyPolls(batch, answer.records, new Set(answer.unknown));
    }
  }

  async #applyPolls(
    batch: readonly TaskRow[],
    records: Awaited<ReturnType<GatewayClient["getTasks"]>>["records"],
    unknown: ReadonlySet<string>,
  ): Promise<void> {
    const { store, clock, settings } = this.#options;
    const now = clock.now();
    const nextPollAt = now + settings.poll.everyMs;
    const round = [];
    for (const task of batch) {
      const taskId = task.task_id as string;
      const outcome = pollOutcome(task, records.get(taskId), unknown.has(taskId), nextPollAt);
      if (outcome.kind === "later") this.#poller.track(task, nextPollAt);
      else round.push({ task, outcome });
    }
    // One poll round, one transaction.
    const { events, lost } = await store.recordPollRound(round, now);
    publish(this.#run, events);
    for (const { task, outcome } of round) {
      if (outcome.kind === "running" && !lost.has(task.key)) {
        const { status, progress } = outcome;
        this.#poller.track({ ...task, state: status, progress, polls: task.polls + 1 }, nextPollAt);
        continue;
      }
      // Completed, failed, or moved on by another process: no longer this engine's to poll.
      this.#poller.untrack(task.key);
      this.#admission.ended(task);
      if (lost.has(task.key)) continue;
      if (outcome.kind === "completed") {
        this.#admission.commit(outcome.cost);
        const soonest = Math.min(
          ...outcome.links.map((link) => link.expiresAt ?? Number.MAX_SAFE_INTEGER),
        );
        this.#enqueueDownload(
          { ...task, state: TaskState.Completed, cost: outcome.cost },
          false,
          soonest,
        );
      } else if (outcome.kind === "failed") {
        await this.#skipDependants(task, outcome.reason);
      }
    }
  }

  // --- downloads

  /** `refresh`: links recorded by an earlier process; ask the gateway for current ones first. */
  async #queueDownloads(task: TaskRow, refresh: boolean): Promise<void> {
    const outputs = await this.#options.store.outputsOf(task.key);
    const soonest = Math.min(...outputs.map((o) => o.expires_at ?? Number.MAX_SAFE_INTEGER));
    this.#enqueueDownload(task, refresh, soonest);
  }

  #enqueueDownload(task: TaskRow, refresh: boolean, soonestExpiry: number): void {
    // Earliest deadline first: p-queue runs higher priorities first.
    const priority = -Math.floor(soonestExpiry / 1000);
    void this.#downloads.add(
      () => this.#guard(this.#download(task, refresh), task, "download failed"),
      {
        priority,
      },
    );
  }

  async #download(task: TaskRow, refresh: boolean): Promise<void> {
    const { store, clock } = this.#options;
    const context = this.#run;
    const result = await downloadOutputs(task, context, refresh, async (file) => {
      const recorded = await store.recordDownloads([file], clock.now());
      publish(context, recorded.events);
      return recorded.complete.has(task.key);
    });
    if (result.complete) this.#check({ ...task, state: TaskState.Downloaded });
    else if (result.expired !== undefined)
      await this.#fail(
        task,
        [TaskState.Completed],
        result.expired.reason,
        TaskState.Expired,
        result.expired.idx,
      );
  }

  // --- endings

  /** Downloaded → post-processing (checks, thumbnails) → done; then its dependants start. */
  #check(task: TaskRow): void {
    const { postprocess, store, emit } = this.#options;
    if (postprocess === undefined || task.lane === "text") {
      this.#spawn(this.#markDone(task), task, "cannot finish");
      return;
    }
    // Interrupted: it stays downloaded, and the resumed run checks it.
    if (this.#abort.signal.aborted) return;
    emit({ type: "job:postprocessing", key: task.key, job: task.job_id, label: task.label });
    this.#checking += 1;
    const checking = (async () => {
      const { verdicts, onFail } = await postprocess.process(task, await store.outputsOf(task.key));
      await this.#checked(task, verdicts, onFail);
    })()
      .catch(async (error: unknown) => {
        if (!this.#abort.signal.aborted)
          await this.#fail(
            task,
            [TaskState.Downloaded],
            `checks could not run: ${coerceError(error).message}`,
          );
      })
      .finally(() => {
        this.#checking -= 1;
      });
    this.#spawn(checking, task, "checks could not run");
  }

  /** A failed check fails the task, or with `on_fail: retry` and attempts left submits it again. */
  async #checked(
    task: TaskRow,
    verdicts: OutputVerdict[],
    onFail: "report" | "retry",
  ): Promise<void> {
    const { store, clock, settings } = this.#options;
    const recorded = await store.recordChecks(task, verdicts, clock.now());
    publish(this.#run, recorded.events);
    if (recorded.done) {
      await this.#startDependants(task);
      return;
    }
    const problems = verdicts.flatMap((verdict) => verdict.problems);
    if (problems.length === 0) return; // another process finished it
    const reason = `check failed: ${problems.join("; ")}`;
    const attempts = (await store.task(task.key))?.attempts ?? task.attempts;
    if (onFail === "report" || attempts >= settings.retry.attempts) {
      await this.#fail(task, [TaskState.Downloaded], reason);
    } else if (await store.requeue(task, [TaskState.Downloaded], reason, clock.now())) {
      this.#admission.enqueue({
        ...task,
        state: TaskState.Pending,
        task_id: null,
        attempts,
        reason,
      });
    }
  }

  async #markDone(task: TaskRow): Promise<void> {
    const events = await this.#options.store.markDone(task, this.#options.clock.now());
    publish(this.#run, events);
    if (events.length > 0) await this.#startDependants(task);
  }

  async #startDependants(task: TaskRow): Promise<void> {
    const templates = this.#options.templates.get(task.job_id);
    if (templates === undefined) return;
    const { dependants, events } = await recordDependants(this.#run, templates, task);
    publish(this.#run, events);
    for (const { task: dependant, problem } of dependants) {
      if (this.#takenOn.has(dependant.key)) continue;
      this.#takenOn.add(dependant.key);
      if (problem !== null && dependant.state === TaskState.Pending)
        await this.#fail(dependant, [TaskState.Pending], problem);
      // Taken on like any recorded task: pending is queued, running is polled, done is checked.
      else this.#spawn(this.#takeOn(dependant), dependant, "cannot resume");
    }
  }

  /** A failed upstream's dependants are recorded skipped, with its reason. */
  async #skipDependants(task: TaskRow, reason: string): Promise<void> {
    const { templates } = this.#options;
    if (!templates.has(task.job_id)) return;
    publish(this.#run, await recordSkipped(this.#run, templates, task, reason));
  }

  async #fail(
    task: TaskRow,
    from: readonly TaskState[],
    reason: string,
    to: "failed" | "rejected" | "expired" = TaskState.Failed,
    expiredOutput?: number,
  ): Promise<void> {
    const { store, clock } = this.#options;
    // Whoever moved it, it is no longer this engine's to poll.
    this.#poller.untrack(task.key);
    this.#admission.ended(task);
    const events: TaskEvent[] = await store.failTask(
      task,
      from,
      to,
      reason,
      clock.now(),
      expiredOutput,
    );
    publish(this.#run, events);
    if (events.length > 0) await this.#skipDependants(task, reason);
  }

  // --- the loop

  /** Keeps work outside the queues in view of `#idle`; a failure fails its task with `what`. */
  #spawn(work: Promise<unknown>, task: TaskRow, what: string): void {
    const tracked: Promise<unknown> = this.#guard(work, task, what).finally(() => {
      this.#background.delete(tracked);
    });
    this.#background.add(tracked);
  }

  /**
   * Work that must not throw: a failure fails its task with `what` (a queue's task settles
   * with it, so a cleared queue leaves nothing waiting on its promise).
   */
  async #guard(work: Promise<unknown>, task: TaskRow, what: string): Promise<void> {
    try {
      await work;
    } catch (error) {
      // A task that has ended (done, failed) keeps its state; the next run takes it on again.
      if (TRANSITIONS[task.state].includes(TaskState.Failed))
        await this.#fail(task, [task.state], `${what}: ${coerceError(error).message}`).catch(
          () => undefined,
        );
    } finally {
      this.#wake?.();
    }
  }

  #halt(reason: RunEnd, message: string): void {
    if (this.#stopping !== undefined) return;
    this.#stopping = reason;
    this.#options.emit({ type: "run:stopping", reason, message });
    this.#wake?.();
  }

  #idle(): boolean {
    const nothingToSubmit = this.#stopping !== undefined || this.#admission.pendingCount === 0;
    return (
      nothingToSubmit &&
      this.#background.size === 0 &&
      this.#poller.size === 0 &&
      this.#submits.size + this.#submits.pending === 0 &&
      this.#downloads.size + this.#downloads.pending === 0
    );
  }

  async #sleep(ms: number): Promise<void> {
    await Promise.race([
      this.#options.clock.sleep(ms, this.#abort.signal).catch(() => undefined),
      new Promise<void>((resolve) => {
        this.#wake = resolve;
      }),
    ]);
    this.#wake = undefined;
  }
}
