import { isSimulator } from "../manifest/index.js";
import { awaitingUpstream, dependantRules } from "../plan/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
import type { EngineOptions, RunContext } from "./context.js";
import type { EngineEvent, JobGroup, Stage } from "./events.js";
import { dependantJobs, jobGroups, stageOf } from "./job-groups.js";
import { stageTakenOn, type TakenOn, waitsForUpstream } from "./take-on.js";

type RunStarted = Extract<EngineEvent, { type: "run:started" }>;

/**
 * A run's start as its reporters are told it. `run:started` counts every task in the stage
 * the run takes it on in — a done task whose file is gone is downloading, with `--force` it
 * is queued — and the dependants its upstreams take on meanwhile. What the run publishes
 * while it takes tasks on is held until `run:started` is out, so each event moves a task on
 * from the stage it was counted in.
 */
export class RunStart {
  readonly #tasks = new Map<string, { row: TaskRow; stage: Stage }>();
  /** Dependants recorded while starting: their `task:added` counts them. */
  readonly #added = new Set<string>();
  readonly #held: EngineEvent[] = [];
  readonly #takingOn = new Set<Promise<unknown>>();

  /** `rows`: the run's tasks as recorded, before any is taken on. */
  constructor(rows: readonly TaskRow[]) {
    for (const row of rows) {
      // A stand-in waiting on a retried upstream is dropped or skipped later, and told then.
      if (row.placeholder === 1 && row.state === TaskState.Pending) continue;
      this.#tasks.set(row.key, { row, stage: stageOf(row.state) });
    }
  }

  /** The run took `recorded` on as `taken` says. */
  placed(taken: TakenOn, recorded: TaskRow): void {
    const row = taken.to === "leave" ? recorded : taken.task;
    this.#tasks.set(row.key, { row, stage: stageTakenOn(taken, recorded) });
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
    const counted = [...this.#tasks.values()].filter(({ row }) => !this.#added.has(row.key));
    const groups = jobGroups(counted, dependantJobs(options.templates));
    // What the plan counts still to come, those added while starting included (told next).
    const awaiting = awaitingUpstream(
      counted.map(({ row }) => row),
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

/**
 * Takes a run's recorded tasks on, each by the driver's `takeOn` (which places it in `start`),
 * but for a first take waiting for its upstream: the upstream's take-on binds and starts it.
 * Then the run's start as its reporters are told it, with what its tasks cost before.
 */
export async function startRun(
  context: Pick<RunContext, "store" | "runId" | "settings" | "outputDir" | "templates" | "baseUrl">,
  start: RunStart,
  tasks: readonly TaskRow[],
  takeOn: (task: TaskRow) => Promise<void>,
): Promise<RunStarted> {
  for (const task of tasks) if (!waitsForUpstream(task)) await takeOn(task);
  await start.settled();
  const { spent, paid } = await context.store.summaryOf({ run: context.runId });
  return start.started(context, { spent, paid });
}
