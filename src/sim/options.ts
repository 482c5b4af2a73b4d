import os from "node:os";
import path from "node:path";
import { type Clock, systemClock } from "../core/clock.js";
import type { PriceTable } from "../families/index.js";

/**
 * What the simulator can be told. Durations named "nominal" are gateway time: they are
 * divided by `timeScale`, so a 45 s image task takes 0.75 s at time scale 60.
 */

/** Faults injected on purpose, each decided by the seed so a test's faults repeat. */
export interface SimFaults {
  /** Fraction of tasks that end `failed` (not billed). */
  taskFailureRate: number;
  /** Fraction of `/v1` requests answered 500 `server_error` before anything happens. */
  serverErrorRate: number;
  /** Fraction of `/v1` requests whose connection is reset before anything happens. */
  resetRate: number;
  /** Fraction of submits that create their task and then lose the response (connection reset). */
  lostResponseRate: number;
  /** Fraction of submits that create (and later bill) their task and then answer 500. */
  createdErrorRate: number;
  /** Fraction of downloads cut off halfway (the full Content-Length is announced). */
  truncateRate: number;
  /** Real milliseconds to wait before answering a download. */
  downloadDelayMs: number;
  /** Fraction of image tasks whose pictures are not the promised pixel size. */
  wrongSizeRate: number;
  /** Fraction of video tasks whose clip is shorter than requested. */
  shortClipRate: number;
  /** Fraction of tasks whose result links have expired by the time they complete. */
  expiredLinkRate: number;
  /** Fraction of task queries (single and batch) answered with an HTML 502 page. */
  htmlPollRate: number;
  /** Fraction of task queries answered 200 with a body that is not JSON. */
  nonJsonPollRate: number;
  /** Fraction of tasks that report a status the spec does not name, and never finish. */
  oddStatusRate: number;
  /** Fraction of failing tasks whose error message runs to megabytes. */
  hugeErrorRate: number;
  /** Fraction of failing tasks whose error message carries markup and terminal escapes. */
  escapeErrorRate: number;
  /** Fraction of tasks whose completed result lists 500 links. */
  surplusLinkRate: number;
  /** Fraction of task queries whose failed tasks repeat the query's credentials in their message. */
  echoKeyRate: number;
  /** Fraction of submits answered with the task id the submit before was answered with. */
  duplicateTaskIdRate: number;
  /** Queries of each completed task answered with no result before its links are listed. */
  unpublishedResultPolls: number;
  /**
   * Fraction of text streams broken off by an error event whose message carries markup,
   * terminal escapes and the request's credentials.
   */
  streamErrorRate: number;
  /** Fraction of text calls the model declines, in its format's way, whatever they ask. */
  textRefusalRate: number;
  /**
   * Fraction of responses answers that write a `commentary` message (what the model is about
   * to do) before their `final_answer` message, each marked by its `phase`.
   */
  commentaryRate: number;
}

/** How `POST /v1/tasks/batch` answers (its body is not shown in the spec). */
export const BATCH_SHAPES = ["list", "object", "map", "missing", "unreadable"] as const;
export type BatchShape = (typeof BATCH_SHAPES)[number];

/** Where a completed video task puts its clip (the spec does not show the video result). */
export const VIDEO_RESULTS = ["videos", "url-field"] as const;
export type VideoResult = (typeof VIDEO_RESULTS)[number];

export interface RateLimit {
  /** Requests per second, refilled continuously. */
  perSecond: number;
  /** Requests allowed at once after a quiet spell. */
  burst: number;
  /**
   * What it counts: generating calls only (media submits and text calls), or every API call —
   * task queries, single and batch, too; downloads never. Default: generating calls.
   */
  counts?: "generations" | "calls";
  /** Whether answers state the limit (a RateLimit-Policy header); default true. */
  announced?: boolean;
}

export interface SimOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  host: string;
  /** Gateway seconds per real second: latencies, link TTL and retention are divided by it. */
  timeScale: number;
  seed: string;
  /** When set, only this API key is accepted; otherwise any non-empty key is. */
  key: string | undefined;
  /** Token bucket for generation calls (or every API call: `counts`); none by default. */
  rateLimit: RateLimit | undefined;
  /** Currency units available; charged when a task completes. Unlimited by default. */
  balance: number | undefined;
  /**
   * Fixed nominal seconds from submit to completion, by lane (`image`, `video`) or family id
   * (`image-a`; a family's own entry wins over its lane's). Others take a random time in their
   * family's range.
   */
  latencySeconds: Readonly<Record<string, number>>;
  /** Nominal seconds a task record is kept after it is created. */
  retentionSeconds: number;
  /** Nominal seconds a result link works after the task completes (24 h). */
  linkTtlSeconds: number;
  /** Family A's safety filter rejects prompts containing this word (case-insensitive); text models decline them. */
  unsafeWord: string;
  batchShape: BatchShape;
  videoResult: VideoResult;
  faults: SimFaults;
  /** How many distinct pictures and clips to draw (by prompt hash); unlimited by default. */
  mediaVariants: number | undefined;
  /** Where rendered images and clips are cached between runs. */
  cacheDir: string;
  /** Real milliseconds between the chunks of a text stream. */
  streamDelayMs: number;
  clock: Clock;
  /** A manifest's `prices:` to charge by, over the contract's and the simulator's own. */
  prices: PriceTable;
  /** Fraction of pictures its text models judge "no" (or score low). */
  judgeNoShare: number;
}

export const NO_FAULTS: SimFaults = {
  taskFailureRate: 0,
  serverErrorRate: 0,
  resetRate: 0,
  lostResponseRate: 0,
  createdErrorRate: 0,
  truncateRate: 0,
  downloadDelayMs: 0,
  wrongSizeRate: 0,
  shortClipRate: 0,
  expiredLinkRate: 0,
  htmlPollRate: 0,
  nonJsonPollRate: 0,
  oddStatusRate: 0,
  hugeErrorRate: 0,
  escapeErrorRate: 0,
  surplusLinkRate: 0,
  echoKeyRate: 0,
  duplicateTaskIdRate: 0,
  unpublishedResultPolls: 0,
  streamErrorRate: 0,
  textRefusalRate: 0,
  commentaryRate: 0,
};

export const SIM_DEFAULTS: SimOptions = {
  port: 0,
  host: "127.0.0.1",
  timeScale: 1,
  seed: "gwrun",
  key: undefined,
  rateLimit: undefined,
  balance: undefined,
  latencySeconds: {},
  retentionSeconds: 7 * 86_400,
  linkTtlSeconds: 86_400,
  unsafeWord: "forbidden",
  batchShape: "list",
  videoResult: "videos",
  faults: NO_FAULTS,
  mediaVariants: undefined,
  cacheDir: path.join(os.tmpdir(), "gwrun-sim-media"),
  streamDelayMs: 2,
  clock: systemClock,
  prices: {},
  judgeNoShare: 0.25,
};

export type SimOptionsInput = Partial<Omit<SimOptions, "faults">> & { faults?: Partial<SimFaults> };

/** Options with every default filled in. */
export function resolveSimOptions(input: SimOptionsInput = {}): SimOptions {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return {
    ...SIM_DEFAULTS,
    ...defined,
    faults: { ...NO_FAULTS, ...input.faults },
  };
}
