import path from "node:path";
import { timeoutsOf } from "../core/timeouts.js";
import { resolvePublish } from "./publish.js";
import { type ManifestInput, NOTIFY_OUTCOMES } from "./schema.js";
import { DEFAULT_MAX_TASKS } from "./task-count.js";
import { localTimeZone } from "./ticks.js";
import type { ManifestSettings, NotifyTarget } from "./types.js";
import { parseDuration, parseRate } from "./units.js";

/** Defaults follow the spec's polling guidance and a cautious submit rate. */
export const DEFAULTS = {
  baseUrl: "sim",
  submitRate: "5/s",
  maxInFlight: 20,
  maxInFlightVideo: 5,
  downloads: 4,
  firstAfter: "15s",
  every: "4s",
  batchSize: 50,
  attempts: 5,
  minDelay: "1s",
  maxDelay: "60s",
  outputDir: "data/outputs/{name}",
  thumbnails: { width: 384, format: "webp" },
} as const;

/** A run name from the file name when the manifest gives none: "campaign.yaml" → "campaign". */
export function nameFromFile(file: string): string {
  const base = path.basename(file).replace(/\.ya?ml$/i, "");
  return base.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "") || "manifest";
}

/** Settings with every default applied; assumes the input passed the manifest schema. */
export function resolveSettings(input: ManifestInput, file: string): ManifestSettings {
  const ms = (value: string | number | undefined, fallback: string) =>
    parseDuration(value ?? fallback) ?? (parseDuration(fallback) as number);
  const thumbnails = input.output?.thumbnails;
  return {
    name: input.name ?? nameFromFile(file),
    gateway: {
      baseUrl: input.gateway?.base_url ?? DEFAULTS.baseUrl,
      apiKey: input.gateway?.api_key,
      messagesVersion: input.gateway?.messages_version,
      privateUrls: input.gateway?.private_urls ?? false,
    },
    limits: {
      submitRate:
        parseRate(input.limits?.submit_rate ?? DEFAULTS.submitRate) ??
        (parseRate(DEFAULTS.submitRate) as NonNullable<ReturnType<typeof parseRate>>),
      maxInFlight: input.limits?.max_in_flight ?? DEFAULTS.maxInFlight,
      maxInFlightVideo: input.limits?.max_in_flight_video ?? DEFAULTS.maxInFlightVideo,
      downloads: input.limits?.downloads ?? DEFAULTS.downloads,
      maxCost: input.limits?.max_cost,
      unknownCost: input.limits?.unknown_cost,
      maxTasks: input.limits?.max_tasks ?? DEFAULT_MAX_TASKS,
    },
    poll: {
      firstAfterMs: ms(input.poll?.first_after, DEFAULTS.firstAfter),
      everyMs: ms(input.poll?.every, DEFAULTS.every),
      batchSize: input.poll?.batch_size ?? DEFAULTS.batchSize,
      giveUpAfterMs:
        input.poll?.give_up_after === undefined
          ? undefined
          : parseDuration(input.poll.give_up_after),
    },
    retry: {
      attempts: input.retry?.attempts ?? DEFAULTS.attempts,
      minDelayMs: ms(input.retry?.min_delay, DEFAULTS.minDelay),
      maxDelayMs: ms(input.retry?.max_delay, DEFAULTS.maxDelay),
      onUnknownSubmit: input.retry?.on_unknown_submit ?? "resubmit",
    },
    output: {
      dir: input.output?.dir ?? DEFAULTS.outputDir,
      thumbnails:
        thumbnails === false
          ? false
          : {
              width: thumbnails?.width ?? DEFAULTS.thumbnails.width,
              format: thumbnails?.format ?? DEFAULTS.thumbnails.format,
            },
      publish: resolvePublish(input.output?.publish),
      renditions: input.output?.renditions ?? [],
      provenance: { prompt: input.output?.provenance?.prompt ?? true },
    },
    checks: input.checks,
    schedule:
      input.schedule === undefined
        ? undefined
        : {
            cron: input.schedule.cron,
            timezone: input.schedule.timezone ?? localTimeZone(),
            overlap: input.schedule.overlap ?? "skip",
            catchUp: input.schedule.catch_up ?? "latest",
            keepRuns: input.schedule.keep?.runs,
          },
    // Read from the manifest's `prices:` (or the file it names) by `readPrices`.
    prices: {},
    notify: resolveNotify(input.notify),
  };
}

/** `notify:` with its defaults: every outcome, the timeout policy's webhook time (10 s). */
export function resolveNotify(input: ManifestInput["notify"]): NotifyTarget[] {
  return (input ?? [])
    .filter((target) => target.webhook !== "")
    .map((target) => ({
      webhook: target.webhook,
      on: target.on ?? NOTIFY_OUTCOMES,
      timeoutMs:
        (target.timeout === undefined ? undefined : parseDuration(target.timeout)) ??
        timeoutsOf().webhook.answerMs,
    }));
}
