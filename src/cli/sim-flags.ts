import { ErrorCode, GwError } from "../core/errors.js";
import { resolveFromCwd } from "../core/io.js";
import { didYouMean } from "../core/suggest.js";
import { parseDuration, parseRate, perSecond } from "../manifest/index.js";
import {
  type BatchShape,
  LATENCY_KEYS,
  type SimFaults,
  type SimOptionsInput,
  type VideoResult,
} from "../sim/index.js";

/** `gwrun sim`'s flags as commander gives them, and the simulator's options they make. */

export interface SimFlags {
  port: string;
  host: string;
  timeScale: string;
  seed?: string;
  key?: string;
  rateLimit?: string;
  rateLimitCounts: "generations" | "calls";
  rateLimitUnannounced?: boolean;
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
  judgeNoShare?: string;
}

export function usage(message: string): GwError {
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
            counts: flags.rateLimitCounts,
            announced: flags.rateLimitUnannounced !== true,
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
    cacheDir: flags.cacheDir === undefined ? undefined : resolveFromCwd(flags.cacheDir),
    judgeNoShare: number("--judge-no-share", flags.judgeNoShare, 0, 1),
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
