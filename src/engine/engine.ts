import { setMaxListeners } from "node:events";
import PQueue from "p-queue";
import { coerceError } from "../core/errors.js";
import { sweepPartials } from "../core/fs.js";
import { partialDir } from "../core/output-files.js";
import { type OutputRow, type TaskRow, TaskState, TRANSITIONS } from "../store/index.js";
import { Admission, DOWNLOAD_BACKLOG, SUBMIT_CONCURRENCY } from "./admission.js";
import { Background } from "./background.js";
import {
  type EngineOptions,
  openRunContext,
  type RunContext,
  type RunResult,
  runResult,
} from "./context.js";
import { recordFailure, startDependants } from "./dependants.js";
import { deadlineFirst, downloadOutputs, localFaultMessage, localFaultOf } from "./download.js";
import type { RunEnd } from "./events.js";
import { PendingWindow } from "./pending-window.js";
import { PeriodBudgets } from "./period-budgets.js";
import { Poller } from "./poll.js";
import { sendsAdmitted } from "./run-end.js";
import { RunStart, startRun } from "./run-start.js";
import { afterDownload, afterSend, finishDownloaded, pollRound } from "./steps.js";
import { StoreFault } from "./store-fault.js";
import { sendTask } from "./submit.js";
import { queuedFromStore, takeOnTask } from "./take-on.js";

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
  /** Work under way outside the queues (checks, endings, dependants); the run waits for it. */
  readonly #background = new Background((task, error, what) => this.#failed(task, error, what));
  /** Dependants (and `from:` tasks read at the start) taken on, so each is started once. */
  readonly #takenOn = new Set<string>();
  /** The run's pending tasks, read as the queue drains. */
  readonly #window: PendingWindow;
  #context: RunContext | undefined;
  /** While tasks are taken on, before `run:started`: where each is, and what waits to be told. */
  #start: RunStart | undefined;
  #stopping: RunEnd | undefined;
  /** A store that cannot record stops the run at once: nothing more is sent. */
  readonly #storeFault = new StoreFault((message) => {
    this.#halt("failed", message);
    this.#abort.abort();
  });
  #unknownSubmits = 0;
  #checking = 0;

  constructor(options: EngineOptions) {
    this.#options = {
      ...options,
      emit: (event) => (this.#start === undefined ? options.emit(event) : this.#start.hold(event)),
    };
    // Every wait of the run listens to this one signal.
    setMaxListeners(0, this.#abort.signal);
    const { limits, poll } = options.settings;
    this.#admission = new Admission(limits, new PeriodBudgets(options));
    this.#poller = new Poller({ batchSize: poll.batchSize, everyMs: poll.everyMs });
    this.#downloads = new PQueue({ concurrency: limits.downloads });
    this.#window = new PendingWindow(options.store, options.runId);
  }

  /** The tasks this engine holds in memory: waiting in its queues, and in flight. */
  get tasksHeld(): { queued: number; inFlight: number } {
    return { queued: this.#admission.pendingCount, inFlight: this.#admission.inFlight() };
  }

  /** Stops submitting (Ctrl-C): what is recorded stays recorded; `run()` returns soon. */
  stop(): void {
    this.#halt("interrupted", "interrupted: no new submits; everything so far is recorded");
    this.#abort.abort();
  }

  async run(): Promise<RunResult> {
    const { store, runId, settings, emit, outputDir, baseUrl } = this.#options;
    const context = await openRunContext(this.#options, this.#abort.signal, {
      takeOnDependant: async (_context, dependant) => this.#takeOnDependant(dependant),
    });
    this.#context = context;
    // Partial downloads of a process that was killed will never be finished: clear them.
    sweepPartials(partialDir(outputDir));
    await this.#takeOnRecorded();
    // Often enough to keep polls on time, rarely enough to cost nothing while waiting.
    const tick = Math.min(50, Math.max(2, settings.poll.everyMs / 4));
    while (!this.#abort.signal.aborted) {
      if (this.#stopping === undefined)
        await this.#window.refill(this.#admission, (error) => this.#storeFault.caught(error));
      this.#fillSubmits();
      await this.#pollDue();
      if (this.#idle()) break;
      await this.#background.sleep(this.#options.clock, tick, this.#abort.signal);
    }
    if (this.#abort.signal.aborted) {
      // Interrupted: what has not started stays as recorded; what runs stops at its signal.
      this.#submits.clear();
      this.#downloads.clear();
    }
    await Promise.all([this.#downloads.onIdle(), this.#submits.onIdle()]);
    // Downloads are over, so nothing new enters post-processing; its outcomes are recorded.
    await this.#options.postprocess?.drain();
    await this.#background.drain();
    // Nothing more can be recorded: the run ends with the store's error.
    const storeError = this.#storeFault.ending();
    if (storeError !== undefined) throw storeError;
    await store.saveLearnedRate(baseUrl, context.pace.rate);
    const result = await runResult(store, runId, this.#stopping, this.#unknownSubmits);
    emit({ type: "run:finished", ...result });
    return result;
  }

  /** Takes the recorded tasks on (pending ones wait in the store), then tells the reporters. */
  async #takeOnRecorded(): Promise<void> {
    const { emit, templates } = this.#options;
    const start = new RunStart(templates);
    this.#start = start;
    const started = await startRun(this.#run, start, async (task) => {
      // Taken on already by its upstream's placement.
      if (this.#takenOn.has(task.key)) return;
      // Only a `from:` task can be met again, as a dependant.
      if (task.upstream_key !== null) this.#takenOn.add(task.key);
      await this.#takeOn(task);
    });
    this.#start = undefined;
    emit(started);
    for (const event of start.held) emit(event);
    for (const upstream of this.#options.feeds ?? []) await startDependants(upstream, this.#run);
  }

  get #run(): RunContext {
    if (this.#context === undefined) throw new Error("the engine is not running");
    return this.#context;
  }

  /** Puts a recorded task where it belongs. */
  async #takeOn(recorded: TaskRow): Promise<void> {
    const taken = await takeOnTask(recorded, this.#run);
    // Earlier processes' submits of unknown outcome count against the budget, whatever its state.
    const told = "task" in taken ? taken.task : recorded;
    this.#admission.unknownSubmits(recorded, told.unknown_submits);
    this.#start?.placed(taken, recorded);
    if (taken.to === "leave") return;
    const { task } = taken;
    if (taken.to === "queue") {
      if (taken.unknownSubmit) this.#unknownSubmits += 1;
      // Pending in the store again: at the start, the queue reads it there in its turn.
      if (this.#start === undefined || !queuedFromStore(task)) this.#admission.enqueue(task);
    } else if (taken.to === "poll") {
      this.#admission.started(task);
      this.#poller.track(task, this.#options.clock.now());
    } else {
      // Paid for in an earlier process, whatever is left to do: it counts against the budget.
      this.#admission.finished(task, task.cost);
      if (taken.to === "download") await this.#queueDownloads(task, true);
      else if (taken.to === "check") this.#check(task);
      else await startDependants(task, this.#run);
    }
  }

  // --- submits and polls

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
          this.#halt("budget", this.#admission.budgetStop());
          return;
        }
        void this.#submits.add(() =>
          this.#background.guard(this.#submit(task), task, "submit failed"),
        );
      }
    }
  }

  async #submit(task: TaskRow): Promise<void> {
    const sent = await sendTask(task, this.#run, () => sendsAdmitted(this.#stopping));
    this.#unknownSubmits += sent.unknownSubmits;
    this.#admission.unknownSubmits(task, task.unknown_submits + sent.unknownSubmits);
    const after = await afterSend(sent, this.#run);
    switch (after.next) {
      case "fault":
        this.#storeFault.unrecorded(after.what);
        throw after.error;
      case "poll":
        this.#poller.track(after.task, after.at);
        return;
      case "finish":
        this.#admission.finished(task, after.task.cost);
        this.#check(after.task);
        return;
      case "halt":
        this.#admission.ended(task);
        this.#halt(after.end, after.message);
        return;
      case "none":
        this.#admission.ended(task);
        return;
      default: {
        const never: never = after;
        throw new Error(`unknown step ${JSON.stringify(never)}`);
      }
    }
  }

  async #pollDue(): Promise<void> {
    const { clock } = this.#options;
    for (const batch of this.#poller.due(clock.now())) {
      let round: Awaited<ReturnType<typeof pollRound>>;
      try {
        round = await pollRound(batch, this.#poller, this.#run);
      } catch (error) {
        if (this.#storeFault.caught(error) || this.#abort.signal.aborted) return;
        throw error;
      }
      for (const task of round.givenUp) this.#admission.ended(task);
      // Completed, failed, or moved on by another process: no longer this engine's to poll.
      for (const { task, outcome, lost } of round.ended) {
        if (!lost && outcome.kind === "completed") this.#admission.finished(task, outcome.cost);
        else this.#admission.ended(task);
        if (lost || outcome.kind !== "completed") continue;
        const completed = { ...task, state: TaskState.Completed, cost: outcome.cost };
        const expiries = outcome.links.map((link) => link.expiresAt);
        this.#enqueueDownload(completed, false, expiries);
      }
    }
  }

  // --- downloads and endings

  /** `refresh`: links recorded by an earlier process; ask the gateway for current ones first. */
  async #queueDownloads(task: TaskRow, refresh: boolean): Promise<void> {
    const expiries = (await this.#options.store.outputsOf(task.key)).map((o) => o.expires_at);
    this.#enqueueDownload(task, refresh, expiries);
  }

  #enqueueDownload(task: TaskRow, refresh: boolean, expiries: readonly (number | null)[]): void {
    const download = async () => {
      const result = await downloadOutputs(task, this.#run, refresh);
      const after = await afterDownload(result, task, this.#run);
      if (after.next === "finish") this.#check(after.task, after.outputs);
      else if (after.next === "halt") this.#halt("failed", after.message);
    };
    void this.#downloads.add(() => this.#background.guard(download(), task, "download failed"), {
      priority: deadlineFirst(expiries, this.#options.clock.now()),
    });
  }

  /** Downloaded → post-processing (checks, thumbnails) → done; then its dependants start. */
  #check(task: TaskRow, outputs?: OutputRow[]): void {
    const { postprocess, emit } = this.#options;
    const checks = postprocess !== undefined && task.lane !== "text";
    if (!checks) {
      this.#background.spawn(this.#finish(task), task, "cannot finish");
      return;
    }
    // Interrupted: it stays downloaded, and the resumed run checks it.
    if (this.#abort.signal.aborted) return;
    emit({ type: "task:postprocessing", key: task.key, job: task.job_id, label: task.label });
    this.#checking += 1;
    const checking = async () => {
      try {
        await this.#finish(task, outputs);
      } catch (error) {
        // A disk that cannot take its sidecar stops the run; the task stays downloaded, paid
        // once, and the next run checks it. Interrupted: the same.
        const localFault = localFaultOf(error);
        if (localFault !== undefined) this.#halt("failed", localFaultMessage({ localFault }));
        else if (!this.#storeFault.caught(error) && !this.#abort.signal.aborted) throw error;
      } finally {
        this.#checking -= 1;
      }
    };
    this.#background.spawn(checking(), task, "checks could not run");
  }

  async #finish(task: TaskRow, outputs?: OutputRow[]): Promise<void> {
    const finished = await finishDownloaded(task, this.#run, outputs);
    this.#admission.commit(finished.spent ?? 0);
    if (finished.kind === "done") await startDependants(task, this.#run);
    else if (finished.kind === "requeued") this.#admission.enqueue(finished.task);
    else if (finished.kind === "unjudged")
      this.#halt("failed", `${task.label}: ${finished.reason}; gwrun resume asks the judge again`);
    else if (finished.kind === "retaken") {
      this.#takenOn.add(finished.take.key);
      await this.#takeOn(finished.take);
    }
  }

  #takeOnDependant(dependant: TaskRow): void {
    if (this.#takenOn.has(dependant.key)) return;
    this.#takenOn.add(dependant.key);
    // Taken on like any recorded task: pending is queued, running is polled, done is checked.
    const takingOn = this.#takeOn(dependant);
    this.#background.spawn(takingOn, dependant, "cannot resume");
    this.#start?.track(takingOn);
  }

  async #fail(task: TaskRow, from: readonly TaskState[], reason: string): Promise<void> {
    // Whoever moved it, it is no longer this engine's to poll.
    this.#poller.untrack(task.key);
    this.#admission.ended(task);
    await recordFailure(this.#run, task, from, reason);
  }

  /** Work that threw: a store that cannot record stops the run, else its task fails with `what`. */
  async #failed(task: TaskRow, error: unknown, what: string): Promise<void> {
    // A task that has ended (done, failed) keeps its state; the next run takes it on again.
    if (this.#storeFault.caught(error) || !TRANSITIONS[task.state].includes(TaskState.Failed))
      return;
    await this.#fail(task, [task.state], `${what}: ${coerceError(error).message}`).catch(
      (failure: unknown) => this.#storeFault.caught(failure),
    );
  }

  #halt(reason: RunEnd, message: string): void {
    if (this.#stopping !== undefined) return;
    this.#stopping = reason;
    this.#options.emit({ type: "run:stopping", reason, message });
    this.#background.wake();
  }

  #idle(): boolean {
    const toSubmit =
      this.#stopping === undefined && (this.#admission.pendingCount > 0 || !this.#window.exhausted);
    const [submits, downloads] = [this.#submits, this.#downloads];
    const queued = submits.size + submits.pending + downloads.size + downloads.pending;
    return !toSubmit && queued === 0 && this.#background.size === 0 && this.#poller.size === 0;
  }
}
