import { isSimulator } from "../manifest/index.js";
import { awaitingUpstream, dependantRules } from "../plan/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
import type { EngineOptions, RunContext } from "./context.js";
import type { EngineEvent, JobGroup, Stage } from "./events.js";
import { dependantJobs, emptyStages, stageOf } from "./job-groups.js";
import { queuedFromStore, stageTakenOn, type TakenOn, waitsForUpstream } from "./take-on.js";

type RunStarted = Extract<EngineEvent, { type: "run:started" }>;

/**
 * A run's start as its reporters are told it. `run:started` counts every task in the stage
 * the run takes it on in — a done task whose file is gone is downloading, with `--force` it
 * is queued — and the dependants its upstreams take on meanwhile. What the run publishes
 * while it takes tasks on is held until `run:started` is out, so each event moves a task on
 * from the stage it was counted in. Tasks are counted as they are read and let go: only the
 * rows of `from:` tasks and of the upstreams they follow are kept (placed again as their
 * upstream is taken on, and read for the dependants still to come).
 */
export class RunStart {
  /** Each job's counts, in the order first met. */
  readonly #groups = new Map<string, JobGroup>();
  readonly #kept = new Map<string, { row: TaskRow; stage: Stage }>();
  /** The jobs `from:` jobs follow. */
  readonly #followed: ReadonlySet<string>;
  /** Dependants recorded while starting: their `task:added` counts them. */
  readonly #added = new Set<string>();
  readonly #held: EngineEvent[] = [];
  readonly #takingOn = new Set<Promise<unknown>>();

  constructor(templates: EngineOptions["templates"]) {
    this.#followed = new Set(dependantRules(templates).map((rule) => rule.from));
  }

  /** A recorded task as read, before it is taken on: counted in its state's stage. */
  count(row: TaskRow): void {
    // A stand-in waiting on a retried upstream is dropped or skipped later, and told then.
    if (!counted(row) || this.#added.has(row.key)) return;
    this.#groupOf(row);
    if (!this.#keeps(row)) this.#add(row, stageOf(row.state), 1);
    else if (!this.#kept.has(row.key)) this.#kept.set(row.key, { row, stage: stageOf(row.state) });
  }

  /** The run took `recorded` on as `taken` says (after `count`, or as a dependant). */
  placed(taken: TakenOn, recorded: TaskRow): void {
    const row = taken.to === "leave" ? recorded : taken.task;
    const stage = stageTakenOn(taken, recorded);
    if (this.#keeps(row)) {
      this.#kept.set(row.key, { row, stage });
      return;
    }
    if (counted(recorded)) this.#add(recorded, stageOf(recorded.state), -1);
    this.#add(row, stage, 1);
  }

  #keeps(row: TaskRow): boolean {
    return row.upstream_key !== null || this.#followed.has(row.job_id);
  }

  #groupOf(row: TaskRow): JobGroup {
    let group = this.#groups.get(row.job_id);
    if (group === undefined) {
      group = {
        job: row.job_id,
        family: row.family,
        lane: row.lane,
        tasks: 0,
        stages: emptyStages(),
        skipped: 0,
      };
      this.#groups.set(row.job_id, group);
    }
    return group;
  }

  /** Counts `row` in `stage` (`by` 1), or takes it out of it (-1). */
  #add(row: TaskRow, stage: Stage, by: 1 | -1): void {
    const group = this.#groupOf(row);
    group.tasks += by;
    group.stages[stage] += by;
    if (stage === "failed" && row.state === TaskState.Skipped)
      group.skipped = (group.skipped ?? 0) + by;
  }

  hold(event: EngineEvent): void {
    if (event.type === "task:added") this.#added.add(event.key);
    this.#held.push(event);
  }

  /** Keeps a dependant's take-on in view until it is over (a failure is the engine's to handle). */
  track(work: Promise<unknown>): void {
    const forget = () => {
      this.#takingOn.delete(over);
    };
    const over = work.then(forget, forget);
    this.#takingOn.add(over);
  }

  /** Waits for the take-ons under way, and those they start. */
  async settled(): Promise<void> {
    while (this.#takingOn.size > 0) await Promise.all(this.#takingOn);
  }

  /** `run:started`, counting the groups at the start, with the `from:` jobs that have no task yet. */
  started(
    options: Pick<EngineOptions, "runId" | "settings" | "outputDir" | "templates" | "baseUrl">,
    spend: { spent: number; paid: number },
  ): RunStarted {
    const kept = [...this.#kept.values()].filter(({ row }) => !this.#added.has(row.key));
    for (const { row, stage } of kept) this.#add(row, stage, 1);
    for (const job of dependantJobs(options.templates))
      if (!this.#groups.has(job.job))
        this.#groups.set(job.job, { ...job, tasks: 0, stages: emptyStages(), skipped: 0 });
    const groups = [...this.#groups.values()];
    // What the plan counts still to come, those added while starting included (told next).
    const awaiting = awaitingUpstream(
      kept.map(({ row }) => row),
      dependantRules(options.templates),
    );
    for (const group of groups) {
      const tasks = awaiting.get(group.job)?.tasks ?? 0;
      if (tasks > 0) group.awaiting = tasks;
    }
    const sum = (of: (group: JobGroup) => number) => groups.reduce((n, group) => n + of(group), 0);
    return {
      type: "run:started",
      runId: options.runId,
      name: options.settings.name,
      outputDir: options.outputDir,
      maxCost: options.settings.limits.maxCost ?? null,
      spent: spend.spent,
      paid: spend.paid,
      simulator: isSimulator(options.baseUrl),
      jobs: groups.length,
      tasks: sum((group) => group.tasks),
      awaiting: sum((group) => group.awaiting ?? 0),
      alreadyDone: sum((group) => group.stages.done),
      groups,
    };
  }

  /** The events published while starting, in order. */
  get held(): readonly EngineEvent[] {
    return this.#held;
  }
}

/** Tasks read at once while a run starts. */
export const START_PAGE = 2000;

/**
 * Takes a run's recorded tasks on, a page at a time, each by the driver's `takeOn` (which
 * places it in `start`), but for a first take waiting for its upstream (the upstream's take-on
 * binds and starts it) and a task that waits in the queue (`queuedFromStore`: the driver reads
 * it when its turn comes). Then the run's start as its reporters are told it, with what its
 * tasks cost before.
 */
export async function startRun(
  context: Pick<RunContext, "store" | "runId" | "settings" | "outputDir" | "templates" | "baseUrl">,
  start: RunStart,
  takeOn: (task: TaskRow) => Promise<void>,
): Promise<RunStarted> {
  for (let after = 0, more = true; more; ) {
    const page = await context.store.taskPage(context.runId, "all", after, START_PAGE);
    more = page.length === START_PAGE;
    for (const { place, task } of page) {
      after = place;
      start.count(task);
      if (!queuedFromStore(task) && !waitsForUpstream(task)) await takeOn(task);
    }
  }
  await start.settled();
  const { spent, paid } = await context.store.summaryOf({ run: context.runId });
  return start.started(context, { spent, paid });
}

/** Counted at the start: all but a stand-in waiting on a retried upstream. */
function counted(row: TaskRow): boolean {
  return !(row.placeholder === 1 && row.state === TaskState.Pending);
}
