import type { Command } from "commander";
import { Option } from "commander";
import { ErrorCode, GwError } from "../core/errors.js";
import { didYouMean } from "../core/suggest.js";
import { parseDuration, parseRate, perSecond } from "../manifest/index.js";
import {
  BATCH_SHAPES,
  type BatchShape,
  LATENCY_KEYS,
  type SimFaults,
  type SimOptionsInput,
  VIDEO_RESULTS,
  type VideoResult,
} from "../sim/index.js";
import { ExitCode } from "./exit-codes.js";
import { err, out } from "./output.js";

interface SimFlags {
  port: string;
  host: string;
  timeScale: string;
  seed?: string;
  key?: string;
  rateLimit?: string;
  burst?: string;
  balance?: string;
  latency?: string[];
  retention: string;
  linkTtl: string;
  unsafeWord?: string;
  batchShape: BatchShape;
  videoResult: VideoResult;
  failRate?: string;
  errorRate?: string;
  resetRate?: string;
  lostResponseRate?: string;
  createdErrorRate?: string;
  truncateRate?: string;
  downloadDelay?: string;
  wrongSizeRate?: string;
  shortClipRate?: string;
  expiredLinkRate?: string;
  htmlPollRate?: string;
  nonJsonPollRate?: string;
  oddStatusRate?: string;
  hugeErrorRate?: string;
  escapeErrorRate?: string;
  surplusLinkRate?: string;
  echoKeyRate?: string;
  duplicateTaskIdRate?: string;
  unpublishedResultPolls?: string;
  streamErrorRate?: string;
  mediaVariants?: string;
  cacheDir?: string;
}

/** `gwrun sim`: the gateway simulator, standalone. */
export function addSimCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("sim")
    .description("run the gateway simulator on loopback (prints its URL; Ctrl-C stops it)")
    .option("--port <n>", "port to listen on (0: a free one)", "8787")
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option(
      "--time-scale <x>",
      "gateway seconds per real second (60: a 45 s task takes 0.75 s)",
      "1",
    )
    .option("--seed <text>", "seed of every injected fault and choice")
    .option("--key <key>", "accept only this API key (default: any non-empty key)")
    .option(
      "--rate-limit <rate>",
      'generation calls allowed, e.g. "10/s" (429 with Retry-After beyond)',
    )
    .option("--burst <n>", "calls allowed at once under --rate-limit (default: one second's worth)")
    .option(
      "--balance <amount>",
      "currency units available; 402 once spent (charged on completion)",
    )
    .option(
      "--latency <lane=duration>",
      "fixed time from submit to completion for a lane or family, e.g. image=15s (gateway time; repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--retention <duration>", "how long task records are kept (gateway time)", "7d")
    .option(
      "--link-ttl <duration>",
      "how long result links work after completion (gateway time)",
      "24h",
    )
    .option(
      "--unsafe-word <word>",
      'family A safety filter rejects prompts with this word, text models decline them (default "forbidden")',
    )
    .addOption(
      new Option("--batch-shape <shape>", "body of POST /v1/tasks/batch")
        .choices(BATCH_SHAPES)
        .default("list"),
    )
    .addOption(
      new Option("--video-result <shape>", "where video results put the clip")
        .choices(VIDEO_RESULTS)
        .default("videos"),
    )
    .option("--fail-rate <fraction>", "tasks that end failed")
    .option("--error-rate <fraction>", "requests answered 500")
    .option("--reset-rate <fraction>", "requests whose connection is reset")
    .option("--lost-response-rate <fraction>", "submits accepted whose response is lost")
    .option(
      "--created-error-rate <fraction>",
      "submits whose task is created (and billed) but answered 500",
    )
    .option("--truncate-rate <fraction>", "downloads cut short")
    .option("--download-delay <duration>", "wait before each download answers")
    .option("--wrong-size-rate <fraction>", "image tasks with pictures of the wrong size")
    .option("--short-clip-rate <fraction>", "video tasks with clips shorter than requested")
    .option(
      "--expired-link-rate <fraction>",
      "tasks whose result links have expired when they complete",
    )
    .option("--html-poll-rate <fraction>", "task queries answered with an HTML 502 page")
    .option("--non-json-poll-rate <fraction>", "task queries answered 200 with a non-JSON body")
    .option("--odd-status-rate <fraction>", "tasks stuck in a status the spec does not name")
    .option("--huge-error-rate <fraction>", "failing tasks whose message runs to megabytes")
    .option(
      "--escape-error-rate <fraction>",
      "failing tasks whose message carries <script> and terminal escapes",
    )
    .option("--surplus-link-rate <fraction>", "completed tasks that list 500 result links")
    .option("--echo-key-rate <fraction>", "task queries whose failed tasks echo the API key")
    .option(
      "--duplicate-task-id-rate <fraction>",
      "submits answered with the task id the submit before got",
    )
    .option(
      "--unpublished-result-polls <n>",
      "queries of each completed task answered without its result first",
    )
    .option(
      "--stream-error-rate <fraction>",
      "text streams broken off by an error event carrying escapes and the API key",
    )
    .option(
      "--media-variants <n>",
      "distinct pictures and clips to render (default: one per prompt)",
    )
    .option("--cache-dir <dir>", "where rendered media are cached")
    .action(async (flags: SimFlags) => {
      const options = simOptionsOf(flags);
      const { startSimulator } = await import("../sim/index.js");
      const simulator = await startSimulator(options).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EADDRINUSE" && error.code !== "EACCES") throw error;
        throw usage(
          `cannot listen on ${options.host}:${options.port} (${error.code === "EADDRINUSE" ? "in use" : "not allowed"}); pick another --port, or 0 for a free one`,
        );
      });
      out(simulator.url);
      err(
        `gwrun sim: gateway simulator on ${simulator.url} (time scale ${simulator.options.timeScale}); Ctrl-C stops it`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await simulator.close();
      setExit(ExitCode.Ok);
    });
}

function usage(message: string): GwError {
  return new GwError(ErrorCode.Usage, message);
}

function number(
  flag: string,
  value: string | undefined,
  min: number,
  max = Number.POSITIVE_INFINITY,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < min || parsed > max) {
    throw usage(
      `${flag} must be a number from ${min}${max === Number.POSITIVE_INFINITY ? " up" : ` to ${max}`}, got "${value}"`,
    );
  }
  return parsed;
}

function seconds(flag: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined)
    throw usage(`${flag} must be a duration such as 500ms, 30s, 24h or 7d, got "${value}"`);
  return ms / 1000;
}

/** Sim options from the command's flags; a bad value is a usage error naming the flag. */
export function simOptionsOf(flags: SimFlags): SimOptionsInput {
  const rate = flags.rateLimit === undefined ? undefined : parseRate(flags.rateLimit);
  if (flags.rateLimit !== undefined && rate === undefined) {
    throw usage(`--rate-limit must be a rate such as 10/s or 600/m, got "${flags.rateLimit}"`);
  }
  const limit = rate === undefined ? undefined : perSecond(rate);
  const fraction = (flag: string, value: string | undefined) => number(flag, value, 0, 1);
  const faults: Partial<SimFaults> = {
    taskFailureRate: fraction("--fail-rate", flags.failRate),
    serverErrorRate: fraction("--error-rate", flags.errorRate),
    resetRate: fraction("--reset-rate", flags.resetRate),
    lostResponseRate: fraction("--lost-response-rate", flags.lostResponseRate),
    createdErrorRate: fraction("--created-error-rate", flags.createdErrorRate),
    truncateRate: fraction("--truncate-rate", flags.truncateRate),
    downloadDelayMs:
      flags.downloadDelay === undefined
        ? undefined
        : seconds("--download-delay", flags.downloadDelay) * 1000,
    wrongSizeRate: fraction("--wrong-size-rate", flags.wrongSizeRate),
    shortClipRate: fraction("--short-clip-rate", flags.shortClipRate),
    expiredLinkRate: fraction("--expired-link-rate", flags.expiredLinkRate),
    htmlPollRate: fraction("--html-poll-rate", flags.htmlPollRate),
    nonJsonPollRate: fraction("--non-json-poll-rate", flags.nonJsonPollRate),
    oddStatusRate: fraction("--odd-status-rate", flags.oddStatusRate),
    hugeErrorRate: fraction("--huge-error-rate", flags.hugeErrorRate),
    escapeErrorRate: fraction("--escape-error-rate", flags.escapeErrorRate),
    surplusLinkRate: fraction("--surplus-link-rate", flags.surplusLinkRate),
    echoKeyRate: fraction("--echo-key-rate", flags.echoKeyRate),
    duplicateTaskIdRate: fraction("--duplicate-task-id-rate", flags.duplicateTaskIdRate),
    unpublishedResultPolls: number("--unpublished-result-polls", flags.unpublishedResultPolls, 0),
    streamErrorRate: fraction("--stream-error-rate", flags.streamErrorRate),
  };
  return {
    port: number("--port", flags.port, 0, 65_535),
    host: flags.host,
    timeScale: number("--time-scale", flags.timeScale, 0.001),
    seed: flags.seed,
    key: flags.key,
    rateLimit:
      limit === undefined
        ? undefined
        : {
            perSecond: limit,
            burst: number("--burst", flags.burst, 1) ?? Math.max(1, Math.ceil(limit)),
          },
    balance: number("--balance", flags.balance, 0),
    latencySeconds: latenciesOf(flags.latency ?? []),
    retentionSeconds: seconds("--retention", flags.retention),
    linkTtlSeconds: seconds("--link-ttl", flags.linkTtl),
    unsafeWord: flags.unsafeWord,
    batchShape: flags.batchShape,
    videoResult: flags.videoResult,
    faults: Object.fromEntries(Object.entries(faults).filter(([, v]) => v !== undefined)),
    mediaVariants: number("--media-variants", flags.mediaVariants, 1),
    cacheDir: flags.cacheDir,
  };
}

/** `--latency image=15s,video-3=2m` (also repeated): nominal seconds by lane or family id. */
function latenciesOf(values: readonly string[]): Record<string, number> {
  const latencies: Record<string, number> = {};
  for (const pair of values.flatMap((value) => value.split(","))) {
    const [key = "", duration, ...rest] = pair.split("=").map((part) => part.trim());
    if (duration === undefined || rest.length > 0) {
      throw usage(`--latency must be LANE=DURATION such as image=15s, got "${pair}"`);
    }
    if (!LATENCY_KEYS.includes(key)) {
      throw usage(
        `--latency names a lane (image, video) or a media family (image-a, video-3, ...), got "${key}"${didYouMean(key, LATENCY_KEYS)}`,
      );
    }
    latencies[key] = seconds(`--latency ${key}`, duration);
  }
  return latencies;
}
