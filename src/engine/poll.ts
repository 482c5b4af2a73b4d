import { ErrorCode } from "../core/errors.js";
import { type GatewayError, outputLinks, type TaskRecord, withRetry } from "../gateway/index.js";
import { type PollOutcome, type TaskRow, TaskState } from "../store/index.js";
import { publish, type RunContext } from "./context.js";
import {
  giveUpAt,
  overdueReason,
  POLL_TROUBLE_LIMIT,
  troubleBackoffMs,
  unreadableAnswer,
  unreadableReason,
} from "./poll-trouble.js";
import { promisedOutputs } from "./promised.js";

/**
 * Polling: what one poll answer means for a task (`pollOutcome`, pure), and the tasks the
 * gateway holds with when each is next due (`Poller`), coalesced so batch calls carry many.
 */

/**
 * Times a task reported completed without any output URL is polled again before it fails:
 * a gateway may publish the result a moment after the status.
 */
export const UNPUBLISHED_RESULT_POLLS = 3;

/**
 * What a poll answer means: a store outcome; "later" when the batch did not mention the task;
 * "unpublished" when it completed without an output URL yet (polled again, recorded as running).
 */
export type PollDecision =
  | PollOutcome
  | { kind: "later" }
  | { kind: "unpublished"; progress: number; nextPollAt: number };

/**
 * `overdue`: the task is past its deadline (when it has not finished, it fails);
 * `unpublished`: answers before this one that said completed without an output URL.
 */
export function pollOutcome(
  task: TaskRow,
  record: TaskRecord | undefined,
  unknownToGateway: boolean,
  nextPollAt: number,
  overdue?: { now: number },
  unpublished = 0,
): PollDecision {
  if (record === undefined) {
    return unknownToGateway
      ? {
          kind: "failed",
          to: "expired",
          reason: `task ${task.task_id} does not exist or has expired at the gateway`,
        }
      : { kind: "later" };
  }
  switch (record.status) {
    case "completed": {
      const links = outputLinks(record);
      if (links.length === 0 && unpublished < UNPUBLISHED_RESULT_POLLS)
        return { kind: "unpublished", progress: record.progress ?? 100, nextPollAt };
      if (links.length === 0)
        return {
          kind: "failed",
          to: "failed",
          reason: `the task completed but its result held no output URL in ${unpublished + 1} answers`,
        };
      const kept = links.slice(0, promisedOutputs(task));
      const surplus = links.length - kept.length;
      return {
        kind: "completed",
        links: kept,
        cost: record.cost,
        ...(surplus > 0 ? { surplus } : {}),
      };
    }
    case "failed":
      return {
        kind: "failed",
        to: "failed",
        reason: `the task failed: ${record.errorMessage ?? "no reason given"}`,
      };
    default:
      // A status the spec does not name counts as not finished yet.
      if (overdue !== undefined)
        return {
          kind: "failed",
          to: "failed",
          reason: overdueReason(task, overdue.now, record.status),
        };
      return {
        kind: "running",
        // A task seen processing stays so, whatever an odd answer says later.
        status:
          record.status === "processing" || task.state === "processing"
            ? "processing"
            : "submitted",
        progress: record.progress ?? task.progress ?? 0,
        nextPollAt,
      };
  }
}

interface Held {
  task: TaskRow;
  nextPollAt: number;
  /** Unreadable poll answers in a row. */
  troubles: number;
  /** Answers in a row that said completed without an output URL. */
  unpublished: number;
}

/** A task polling gave up on, and why. */
export interface GivenUp {
  task: TaskRow;
  reason: string;
}

/** A due poll waits at most this share of `poll.every` for others to share its batch call. */
const POLL_COALESCE_SHARE = 0.25;

/**
 * The tasks the gateway holds for this run. A task that falls due may wait up to
 * `coalesceMs` for others, so one batch call asks about many; it does not wait when a batch
 * is full or when every task held is due already (nothing else would join).
 */
export class Poller {
  readonly #held = new Map<string, Held>();
  readonly #batchSize: number;
  readonly #coalesceMs: number;
  readonly #everyMs: number;

  /**
   * `everyMs`: the poll interval, which waits after unreadable answers are multiples of;
   * `coalesceMs`: how long a due poll may wait for others to share its batch call.
   */
  constructor(options: { batchSize: number; coalesceMs?: number; everyMs: number }) {
    this.#batchSize = options.batchSize;
    this.#coalesceMs = options.coalesceMs ?? options.everyMs * POLL_COALESCE_SHARE;
    this.#everyMs = options.everyMs;
  }

  get size(): number {
    return this.#held.size;
  }

  has(key: string): boolean {
    return this.#held.has(key);
  }

  /**
   * Starts or goes on polling a task from `nextPollAt` (after a readable answer);
   * `unpublished`: answers in a row that said completed without an output URL.
   */
  track(task: TaskRow, nextPollAt: number, unpublished = 0): void {
    this.#held.set(task.key, { task, nextPollAt, troubles: 0, unpublished });
  }

  /** Answers in a row that said the task completed without an output URL. */
  unpublished(key: string): number {
    return this.#held.get(key)?.unpublished ?? 0;
  }

  /**
   * A poll round that failed with `error`: its tasks are polled again later, backing off while
   * the gateway's answers cannot be read; those it answered unreadably too often are given up.
   */
  unanswered(
    batch: readonly TaskRow[],
    error: unknown,
    now: number,
  ): { delayMs: number; givenUp: GivenUp[] } {
    const everyMs = this.#everyMs;
    const answer = unreadableAnswer(error);
    const givenUp: GivenUp[] = [];
    let delayMs = everyMs;
    for (const task of batch) {
      const held = this.#held.get(task.key);
      const troubles = (held?.troubles ?? 0) + (answer === undefined ? 0 : 1);
      if (answer !== undefined && troubles >= POLL_TROUBLE_LIMIT) {
        givenUp.push({ task, reason: unreadableReason(troubles, answer) });
        continue;
      }
      delayMs = Math.max(delayMs, troubleBackoffMs(troubles, everyMs));
      const unpublished = held?.unpublished ?? 0;
      this.#held.set(task.key, { task, nextPollAt: now + delayMs, troubles, unpublished });
    }
    return { delayMs, givenUp };
  }

  /**
   * Goes on polling the tasks of a round that are still running (or not mentioned, or
   * completed without an output URL yet); returns the others, no longer polled: completed,
   * failed, or moved on by another process.
   */
  settle(polled: readonly Polled[], now: number): Polled[] {
    const ended: Polled[] = [];
    for (const entry of polled) {
      const { task, outcome, lost } = entry;
      if (outcome.kind === "later") this.track(task, now + this.#everyMs);
      else if (outcome.kind === "running" && !lost) {
        const { status: state, progress, nextPollAt } = outcome;
        this.track({ ...task, state, progress, polls: task.polls + 1 }, nextPollAt);
      } else if (outcome.kind === "unpublished" && !lost) {
        const { progress, nextPollAt } = outcome;
        const next = { ...task, state: TaskState.Processing, progress, polls: task.polls + 1 };
        this.track(next, nextPollAt, this.unpublished(task.key) + 1);
      } else {
        this.untrack(task.key);
        ended.push(entry);
      }
    }
    return ended;
  }

  /** Stops polling the tasks not among `keys` (another process moved them on). */
  keepOnly(keys: ReadonlySet<string>): void {
    for (const key of this.#held.keys()) if (!keys.has(key)) this.#held.delete(key);
  }

  /** Stops polling a task; true when it was polled. */
  untrack(key: string): boolean {
    return this.#held.delete(key);
  }

  /** The batches to ask about now, each at most `batchSize` tasks; empty while waiting. */
  due(now: number): TaskRow[][] {
    const due: Held[] = [];
    let oldest = Number.POSITIVE_INFINITY;
    for (const polled of this.#held.values()) {
      if (polled.nextPollAt > now) continue;
      due.push(polled);
      oldest = Math.min(oldest, polled.nextPollAt);
    }
    if (due.length === 0) return [];
    const waitOver = now - oldest >= this.#coalesceMs;
    if (!waitOver && due.length < this.#batchSize && due.length < this.#held.size) return [];
    // Longest waiting first; a partial last batch waits for company unless its wait is over.
    due.sort((a, b) => a.nextPollAt - b.nextPollAt);
    const batches: TaskRow[][] = [];
    for (let start = 0; start < due.length; start += this.#batchSize) {
      const slice = due.slice(start, start + this.#batchSize);
      const full = slice.length === this.#batchSize;
      const sliceWaitOver = now - (slice[0] as Held).nextPollAt >= this.#coalesceMs;
      if (!full && !sliceWaitOver && due.length < this.#held.size && batches.length > 0) break;
      batches.push(slice.map((polled) => polled.task));
    }
    return batches;
  }
}

/**
 * A query answered with an error it is tried again after: a 429 tells the pace its limit counts
 * queries (they take turns from now on) and slows it; anything else is a retry.
 */
export function queryRetried(context: RunContext, error: GatewayError, delayMs: number): void {
  const { pace, emit } = context;
  if (error.code === ErrorCode.HttpRateLimited) {
    pace.rateLimited(error.retryAfterMs, error.rateLimitPerSecond, true);
    const retryAfterMs = error.retryAfterMs ?? delayMs;
    emit({ type: "gateway:rate-limited", retryAfterMs, ratePerSecond: pace.rate });
  } else emit({ type: "gateway:retry", what: "poll", delayMs, reason: error.message });
}

/** One task's share of a poll round: what the answer meant, and whether another process moved it first. */
export interface Polled {
  task: TaskRow;
  outcome: PollDecision;
  lost: boolean;
}

/** The gateway's answer about a batch of tasks, retried as the run's policy says. */
export type BatchAnswer = Awaited<ReturnType<RunContext["client"]["getTasks"]>>;

/**
 * Asks the gateway about a batch of tasks, retrying as the run's policy says; throws when it
 * could not be asked (the tasks are still its own: poll them later).
 */
export function askAbout(batch: readonly TaskRow[], context: RunContext): Promise<BatchAnswer> {
  const { client, clock, random, signal } = context;
  return withRetry(
    () =>
      client.getTasks(
        batch.map((task) => task.task_id as string),
        undefined,
        () => context.pace.query(signal),
      ),
    context.retry,
    { clock, random, signal, onRetry: (error, delayMs) => queryRetried(context, error, delayMs) },
  );
}

/**
 * Records what the gateway answered about a batch, in one transaction; the store's failure
 * is thrown as it is (it is not the gateway's).
 */
export async function recordAnswers(
  batch: readonly TaskRow[],
  answer: BatchAnswer,
  context: RunContext,
  unpublished: (key: string) => number,
): Promise<Polled[]> {
  const { clock, store, settings } = context;
  const now = clock.now();
  const unknown = new Set(answer.unknown);
  const decided = batch.map((task) => {
    const taskId = task.task_id as string;
    const outcome = pollOutcome(
      task,
      answer.records.get(taskId),
      unknown.has(taskId),
      now + settings.poll.everyMs,
      now >= giveUpAt(task, settings) ? { now } : undefined,
      unpublished(task.key),
    );
    return { task, outcome };
  });
  const round = decided.flatMap(({ task, outcome }): { task: TaskRow; outcome: PollOutcome }[] => {
    if (outcome.kind === "later") return [];
    if (outcome.kind !== "unpublished") return [{ task, outcome }];
    // Recorded as still running: its poll counts, and its result is asked for again.
    const { progress, nextPollAt } = outcome;
    return [{ task, outcome: { kind: "running", status: "processing", progress, nextPollAt } }];
  });
  const { events, lost } = await store.recordPollRound(round, now);
  publish(context, events);
  return decided.map(({ task, outcome }) => ({
    // As recorded: a completed task's sidecars carry its time without reading the row back.
    task: outcome.kind === "completed" ? { ...task, completed_at: now } : task,
    outcome,
    lost: lost.has(task.key),
  }));
}
