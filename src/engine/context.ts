import type { Clock } from "../core/clock.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import { forgetMadeFolders } from "../core/fs.js";
import { CLAIM_OWNER } from "../core/process.js";
import type { Random } from "../core/random.js";
import type { CheckedJob } from "../families/index.js";
import type { GatewayClient, RetryPolicy } from "../gateway/index.js";
import { type ManifestSettings, perSecond } from "../manifest/index.js";
import type {
  DownloadedFile,
  Estimated,
  OutputCheck,
  Receipt,
  Store,
  TaskEvent,
  TaskRow,
} from "../store/index.js";
import { UNDONE_STATES } from "../store/index.js";
import { batched } from "./batch.js";
import type { Emit, RunEnd, StateCounts } from "./events.js";
import { type Pace, SubmitPace } from "./pace.js";
import type { PostProcess } from "./post-process.js";
import type { OutputPublisher } from "./published.js";

/** Bytes a download may have: a picture is far below a clip. */
export type DownloadCaps = Readonly<Record<"image" | "video", number>>;

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
  /** Done tasks of earlier runs whose dependants this run makes (`--only` of a `from:` job). */
  feeds?: readonly TaskRow[];
  /** Downloads larger than this many bytes are refused, by kind of output. */
  maxDownloadBytes: DownloadCaps;
  /** Told every event of the run, after the store has recorded it. */
  emit: Emit;
  /** Checks and thumbnails between downloaded and done; without it tasks are done once downloaded. */
  postprocess?: PostProcess;
  /** Object storage each done task's outputs are published to (`output.publish`). */
  publisher?: OutputPublisher;
  /** Where the run's files are written (default: this machine's file systems). */
  files?: FileWrites;
}

export type { Estimated };

/** How a run ended: its tasks by state, what they cost, and submits whose outcome was unknown. */
export interface RunResult {
  end: RunEnd;
  counts: StateCounts;
  /** What the run's tasks cost in all, whichever run paid (what `max_cost` counts). */
  spent: number;
  /** What this run paid itself: the tasks it submitted. */
  paid: number;
  /** What the tasks this run paid for were estimated at (`gwrun cost`'s figures). */
  estimate: Estimated;
  unknownSubmits: number;
}

/** What every part of a run works with, built once by the engine. */
export interface RunContext extends EngineOptions {
  /** Aborted when the run is interrupted; every wait listens to it. */
  signal: AbortSignal;
  retry: RetryPolicy;
  /** The submit pace, starting at the rate learned by earlier runs. */
  pace: Pace;
  /** The store writes every task makes, gathered per turn of the event loop (published after commit). */
  writes: TaskWrites;
  files: FileWrites;
  /** Takes a recorded dependant on, as the driver takes its tasks on (`RunParts`). */
  takeOnDependant(dependant: TaskRow): Promise<void>;
}

/**
 * Why a task was not claimed: another process took it first (`taken`), or, in a fleet, its
 * lane is full (`full`), the run's budget has no room (`budget`), a budget across runs has
 * none (`period`), it is gone (`gone`).
 */
export type ClaimRefusal = "taken" | "full" | "budget" | "period" | "gone";

/** A claim's answer: the task, claimed, or why not. */
export type Claim = { claimed: TaskRow } | { refused: ClaimRefusal };

/** Each answers for its own task: whether the store moved it (another process may have first). */
export interface TaskWrites {
  /**
   * A claim is made before the submit's turn at the pace, not after: a claim that is a round
   * trip of its own (across processes) must not push a send past its turn into the next one's.
   */
  readonly claimFirst?: boolean;
  claim(task: TaskRow): Promise<Claim>;
  /**
   * `recordedAt`: the time recorded as the task's submitted_at. `duplicateOf`: the label of
   * another task the gateway gave the same task id; not recorded.
   */
  receipt(receipt: Receipt): Promise<{ recordedAt: number } | "lost" | { duplicateOf: string }>;
  /** True when this was the task's last output (it is downloaded now). */
  download(file: DownloadedFile): Promise<boolean>;
  /** True when every check passed and the task is done. */
  checks(task: TaskRow, checks: readonly OutputCheck[]): Promise<boolean>;
}

/**
 * What a driver brings of its own to a run's context: a pace shared beyond this process, and
 * writes that hold caps across processes (made from the context they write for).
 */
export interface RunParts {
  pace?: Pace;
  writes?(context: Omit<RunContext, "writes" | "takeOnDependant">): TaskWrites;
  /** How the driver takes a recorded dependant on (the context is the one opened here). */
  takeOnDependant(context: RunContext, dependant: TaskRow): Promise<void>;
}

export async function openRunContext(
  options: EngineOptions,
  signal: AbortSignal,
  parts: RunParts,
): Promise<RunContext> {
  const { store, settings, clock, baseUrl } = options;
  forgetMadeFolders();
  const ceiling = perSecond(settings.limits.submitRate);
  const pace =
    parts.pace ?? new SubmitPace(clock, ceiling, (await store.learnedRate(baseUrl)) ?? ceiling);
  const context = {
    ...options,
    signal,
    retry: { ...settings.retry },
    pace,
    files: options.files ?? nodeFileWrites,
  };
  const opened: RunContext = {
    ...context,
    writes: parts.writes?.(context) ?? taskWrites(options),
    takeOnDependant: (dependant) => parts.takeOnDependant(opened, dependant),
  };
  return opened;
}

/**
 * `gather`: how writes are gathered (`batched`); a fleet's, each a round trip to PostgreSQL,
 * one at a time.
 */
export function taskWrites(
  { store, clock, emit }: Pick<EngineOptions, "store" | "clock" | "emit">,
  gather: { oneAtATime?: boolean } = {},
): TaskWrites {
  const claim = batched(async (tasks: TaskRow[]): Promise<Claim[]> => {
    const { claimed, events } = await store.claimForSubmit(tasks, CLAIM_OWNER, clock.now());
    publish({ emit }, events);
    const byKey = new Map(claimed.map((task) => [task.key, task]));
    return tasks.map((task) => {
      const row = byKey.get(task.key);
      return row === undefined ? { refused: "taken" } : { claimed: row };
    });
  }, gather);
  const receipt = batched(async (receipts: Receipt[]) => {
    const recordedAt = clock.now();
    const { events, duplicates } = await store.recordReceipts(receipts, recordedAt);
    publish({ emit }, events);
    const moved = new Set(events.map((event) => event.key));
    return receipts.map((entry) => {
      const duplicateOf = duplicates.get(entry.task.key);
      if (duplicateOf !== undefined) return { duplicateOf };
      return moved.has(entry.task.key) ? { recordedAt } : "lost";
    });
  }, gather);
  const download = batched(async (files: DownloadedFile[]) => {
    const { events, complete } = await store.recordDownloads(files, clock.now());
    publish({ emit }, events);
    // Only the file that completed its task says so.
    const last = new Map(files.map((file, i) => [file.task.key, i]));
    return files.map((file, i) => complete.has(file.task.key) && last.get(file.task.key) === i);
  }, gather);
  const checks = batched(async (checked: { task: TaskRow; checks: readonly OutputCheck[] }[]) => {
    const { events, done } = await store.recordChecks(checked, clock.now());
    publish({ emit }, events);
    return checked.map((entry) => done.has(entry.task.key));
  }, gather);
  return { claim, receipt, download, checks: (task, list) => checks({ task, checks: list }) };
}

/** How a run ended: stopped early, or failed when any of its tasks did not get done. */
export async function runResult(
  store: Store,
  runId: number,
  stopping: RunEnd | undefined,
  unknownSubmits: number,
): Promise<RunResult> {
  const { states: counts, spent, paid } = await store.summaryOf({ run: runId });
  const { estimate, atUnknownCost, unpriced } = await store.costReport({ run: runId }, "job");
  const failed = UNDONE_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
  const end = stopping ?? (failed > 0 ? "failed" : "done");
  const estimated = { estimate, atUnknownCost, unpriced };
  return { end, counts, spent, paid, estimate: estimated, unknownSubmits };
}

/** Publishes what a store transition reported, once it has committed. */
export function publish(context: Pick<RunContext, "emit">, events: readonly TaskEvent[]): void {
  for (const event of events) context.emit(event);
}
