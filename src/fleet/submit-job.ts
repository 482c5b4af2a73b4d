import {
  afterSend,
  budgetStopMessage,
  periodStop,
  publish,
  sendsAdmitted,
  sendTask,
  waitsForUpstream,
} from "../engine/index.js";
import { type PgStore, type TaskRow, TaskState } from "../store/index.js";
import { claimLimits, claimTasks, type FleetRun, haltRun } from "./fleet-run.js";

/**
 * A submit job: pending tasks (one, or up to ten of a large run: sql/pg/000014), each sent once,
 * one after another. The job's tasks are claimed together first, in one call (the claim holds
 * the cap and the budget for every worker); a task the lane had no room for is claimed on its
 * own when its turn comes, a full lane waited out. Each takes its turn at the shared pace, and
 * what the gateway answered is recorded. Polls are the poll leader's; outputs are download
 * jobs the store queues when the task completes.
 */

/** How often a submit waiting for room on its lane looks again. */
const ROOM_POLL_MS = 200;

export interface SubmitDeps {
  store: PgStore;
  /** The run a task belongs to, opened; throws when this worker cannot work it (the job is
   * then tried again later, by the process that can). */
  runOf(runId: number): Promise<FleetRun>;
  /** Throws when this worker may not claim (stopping, or its heartbeat is stale). */
  mayClaim(): void;
  /** Waits `ms` (cut short when the worker stops). */
  wait(ms: number): Promise<void>;
}

export async function submitJob(keys: readonly string[], deps: SubmitDeps): Promise<void> {
  // Read together as the job starts: a task moved since is found out by its claim, which
  // takes only a pending task. One already sent or done is passed over, so a job tried again
  // redoes nothing.
  const read = await deps.store.tasksByKey(keys);
  const sendable: { task: TaskRow; run: FleetRun }[] = [];
  for (const key of keys) {
    const task = await sendableTask(read.get(key), deps);
    if (task !== undefined) sendable.push({ task, run: await deps.runOf(task.run_id) });
  }
  const ahead: { task: TaskRow; run: FleetRun }[] = [];
  const sending: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;
  try {
    await claimAhead(sendable, deps, ahead);
    for (const { task, run } of sendable) {
      // The next task's turn starts once the gateway has answered this one: its receipt is
      // recorded meanwhile, with the worker's other receipts in one statement. One receipt at
      // most is under way as a task is sent, so a worker that dies leaves no more than two
      // answers unrecorded a job. A run that holds unknown submits sends one task at a time,
      // each recorded before the next.
      await sending.at(-2);
      if (failure !== undefined) break;
      let answered = () => {};
      const called = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const ending = submitTask(task, run, deps, answered).catch((error: unknown) => {
        failure ??= { error };
      });
      sending.push(ending);
      const pipelined = run.context.settings.retry.onUnknownSubmit !== "hold";
      await (pipelined ? Promise.race([called, ending]) : ending);
    }
    await Promise.all(sending);
    // The first failure, once every send under way has ended: the job is tried again.
    if (failure !== undefined) throw failure.error;
  } finally {
    await Promise.all(sending);
    // Claimed with the others and never sent (the worker stops, the run halted): pending again.
    const unsent = ahead.filter(({ task, run }) => run.claimedAhead.delete(task.key));
    const [first] = unsent;
    if (first !== undefined) {
      const keys = unsent.map(({ task }) => task.key);
      await deps.store.fleet.releaseUnsentClaims(
        keys,
        first.run.owner,
        first.run.context.clock.now(),
      );
    }
  }
}

/** The task as it is now, if it is to be sent: pending, and not waiting for its upstream. */
async function sendableTask(
  read: TaskRow | undefined,
  deps: SubmitDeps,
): Promise<TaskRow | undefined> {
  const { store } = deps;
  // A dependant's request is bound when its upstream is done, maybe since the job started.
  const fresh = read === undefined || read.upstream_key === null;
  const task = fresh ? read : await store.task(read.key);
  if (task === undefined || task.state !== TaskState.Pending || task.placeholder === 1) return;
  const upstream = task.upstream_key === null ? undefined : await store.task(task.upstream_key);
  return waitsForUpstream(task, upstream) ? undefined : task;
}

/**
 * The job's tasks claimed in one call per run and lane, kept in their run's `claimedAhead`
 * for their sends and listed in `claimed`; those refused are claimed again one by one when
 * their turn comes. A worker killed meanwhile leaves them claimed: the reaper resolves them
 * as unknown submits (sent again, and counted).
 */
async function claimAhead(
  sendable: readonly { task: TaskRow; run: FleetRun }[],
  deps: SubmitDeps,
  claimed: { task: TaskRow; run: FleetRun }[],
): Promise<void> {
  if (sendable.length < 2) return;
  const groups = new Map<string, { run: FleetRun; tasks: TaskRow[] }>();
  for (const { task, run } of sendable) {
    const group = `${run.id} ${task.lane === "video" ? "video" : "image"}`;
    const entry = groups.get(group) ?? { run, tasks: [] };
    entry.tasks.push(task);
    groups.set(group, entry);
  }
  for (const { run, tasks } of groups.values()) {
    deps.mayClaim();
    // A run that holds a submit of unknown outcome rather than send it again claims one task
    // at a time: a worker that dies then leaves held only the task it was sending.
    if (run.halt !== undefined || run.context.settings.retry.onUnknownSubmit === "hold") continue;
    const { context } = run;
    const limits = claimLimits(context, tasks[0] as TaskRow, run.budgets);
    const claims = await claimTasks(deps.store, tasks, run.owner, limits, context.clock.now());
    for (const claim of claims) {
      if ("refused" in claim) continue;
      publish(context, claim.events);
      run.claimedAhead.set(claim.claimed.key, claim.claimed);
      claimed.push({ task: claim.claimed, run });
    }
  }
}

/** `answered`: called once the gateway has answered (not called when nothing is sent). */
async function submitTask(
  task: TaskRow,
  run: FleetRun,
  deps: SubmitDeps,
  answered: () => void,
): Promise<void> {
  const { store } = deps;
  for (;;) {
    deps.mayClaim();
    // Claimed with its job's others, it was admitted within the budget: a budget stop lets it
    // go, as one process sends the tasks it took (`sendsAdmitted`).
    const admitted = run.claimedAhead.has(task.key);
    if (run.halt !== undefined && !(admitted && sendsAdmitted(run.halt))) return;
    const sent = await sendTask(task, run.context, () => sendsAdmitted(run.halt), answered);
    if (sent.kind === "not-sent") {
      const { refused } = sent;
      // The lane is full fleet-wide: the claim says so before any turn is taken.
      if (refused === "full") {
        await deps.wait(ROOM_POLL_MS);
        continue;
      }
      if (refused === "budget") {
        const { maxCost } = run.context.settings.limits;
        const { spent } = await store.summaryOf({ run: run.id });
        await haltRun(store, run, "budget", budgetStopMessage(maxCost, spent));
      }
      if (refused === "period")
        await haltRun(store, run, "budget", await periodStop(store, run.budgets, Date.now()));
      return;
    }
    // The rest is the store's: it queues what follows (polls are the leader's, a text answer's
    // finishing a download job).
    const after = await afterSend(sent, run.context);
    if (after.next === "fault") throw after.error;
    if (after.next === "halt") await haltRun(store, run, after.end, after.message);
    return;
  }
}
