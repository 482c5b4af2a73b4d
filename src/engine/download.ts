import { coerceError, ErrorCode, GwError, localWriteError } from "../core/errors.js";
import { partialDir } from "../core/output-files.js";
import { GatewayError, outputLinks, withRetry } from "../gateway/index.js";
import type { OutputRow, TaskRow } from "../store/index.js";
import type { RunContext } from "./context.js";
import { freeOutputPath } from "./output-names.js";

/**
 * Downloading a completed task's outputs: each pending output streams to a temporary file,
 * checked and hashed, then renamed into place; a dead link ends the task `expired`. A link
 * past its stated expiry is still tried once (clocks differ; links outlive their dates).
 * Each file is recorded as it lands; the last one moves the task to downloaded. `read`: the
 * task's outputs as just read with it (read again when the links are refreshed).
 */
export async function downloadOutputs(
  task: TaskRow,
  context: RunContext,
  refresh: boolean,
  read?: { outputs: readonly OutputRow[]; labelShared: boolean },
): Promise<DownloadResult> {
  const { store, clock, client, outputDir, signal } = context;
  if (refresh) await refreshLinks(task, context);
  const outputs =
    read === undefined || refresh ? await store.outputsOf(task.key) : [...read.outputs];
  for (const [i, output] of outputs.entries()) {
    if (output.state === "downloaded") continue;
    if (signal.aborted) break;
    if (output.url === null)
      return { complete: false, expired: { idx: output.idx, reason: EXPIRED } };
    const pastExpiry = output.expires_at !== null && output.expires_at <= clock.now();
    const url = output.url;
    const kind = task.lane === "video" ? "video" : "image";
    let file: Awaited<ReturnType<typeof client.download>>;
    try {
      file = await withRetry(
        () =>
          client.download(
            url,
            (contentType) =>
              freeOutputPath(
                store,
                {
                  outputDir,
                  jobId: task.job_id,
                  label: task.label,
                  key: task.key,
                  index: output.idx,
                  count: outputs.length,
                  contentType,
                },
                read?.labelShared ?? true,
              ),
            {
              maxBytes: context.maxDownloadBytes[kind],
              kind,
              tempDir: partialDir(outputDir),
              files: context.files,
            },
          ),
        pastExpiry ? { ...context.retry, attempts: 1 } : context.retry,
        {
          clock,
          random: context.random,
          signal,
          onRetry: (error, delayMs) =>
            context.emit({
              type: "gateway:retry",
              what: `download ${task.label}`,
              delayMs,
              reason: error.message,
            }),
        },
      );
    } catch (error) {
      if (signal.aborted) break;
      // This machine cannot keep the file: the task stays completed, its links still good.
      if (error instanceof GwError && error.code === ErrorCode.LocalWrite)
        return { complete: false, localFault: error };
      if (error instanceof GatewayError && error.code === ErrorCode.LinkExpired)
        return { complete: false, expired: { idx: output.idx, reason: error.message } };
      if (pastExpiry) {
        const reason = `${EXPIRED} (${coerceError(error).message})`;
        return { complete: false, expired: { idx: output.idx, reason } };
      }
      throw error;
    }
    const { path, bytes, sha256, contentType } = file;
    const downloadedAt = clock.now();
    outputs[i] = {
      ...output,
      state: "downloaded",
      path,
      bytes,
      sha256,
      content_type: contentType,
      downloaded_at: downloadedAt,
    };
    if (await context.writes.download({ task, idx: output.idx, ...file, downloadedAt }))
      return { complete: true, outputs };
  }
  return { complete: false };
}

const EXPIRED = "the result link expired before it was downloaded";

export type DownloadResult =
  /** `outputs`: the task's outputs as recorded now, for its checks. */
  | { complete: true; outputs: OutputRow[] }
  /**
   * Interrupted, or (`expired`) an output's link is dead: the task ends `expired`, or
   * (`localFault`) this machine could not write the file: the run stops, the task stays.
   */
  | { complete: false; expired?: { idx: number; reason: string }; localFault?: GwError };

/**
 * A file of a downloaded task this machine could not write (a sidecar, a review image: a full
 * or read-only disk) as the run's local fault; undefined for any other error.
 */
export function localFaultOf(error: unknown): GwError | undefined {
  const file = (error as { path?: unknown } | null)?.path;
  return localWriteError(error, typeof file === "string" ? file : "a file of the run");
}

/** A run's stop for a file this machine could not write: what, why, and how to go on. */
export function localFaultMessage(result: { localFault?: GwError }): string {
  const fault = result.localFault;
  return fault === undefined ? "" : `stopping: ${fault.message}; ${fault.hint ?? ""}`;
}

/**
 * Links recorded by an earlier process may point elsewhere now (a simulator restarted on
 * another port, a re-mirrored result): the task's current record says. Kept as they are
 * when the gateway no longer knows the task.
 */
async function refreshLinks(task: TaskRow, context: RunContext): Promise<void> {
  if (task.task_id === null) return;
  try {
    const record = await context.client.getTask(task.task_id, undefined, () =>
      context.pace.query(context.signal),
    );
    if (record.status !== "completed") return;
    await context.store.updateLinks(task.key, outputLinks(record));
  } catch (error) {
    // The recorded links are all there is; a 429 still tells the pace that queries count.
    if (error instanceof GatewayError && error.code === ErrorCode.HttpRateLimited)
      context.pace.rateLimited(error.retryAfterMs, error.rateLimitPerSecond, true);
  }
}

/** How long a download may wait at most, minutes: links further away, or none, wait as long. */
export const DOWNLOAD_WAIT_CAP_MINUTES = 1440;

/**
 * How long a download may wait: the whole minutes until the nearest of its links expires,
 * from 0 (expired) to a day. Lower goes first, in one process and in a fleet, whose queue
 * orders by `gwrun_download_priority`, the same rule in SQL (test/store/rules/download-order).
 */
export function minutesToExpiry(expiries: readonly (number | null)[], now: number): number {
  const known = expiries.filter((at): at is number => at !== null);
  if (known.length === 0) return DOWNLOAD_WAIT_CAP_MINUTES;
  const minutes = Math.floor((Math.min(...known) - now) / 60_000);
  return Math.min(DOWNLOAD_WAIT_CAP_MINUTES, Math.max(0, minutes));
}

/**
 * A download's queue priority: p-queue runs higher first. The minute it must start by, so
 * downloads queued at different times keep the order of their links' expiries.
 */
export function deadlineFirst(expiries: readonly (number | null)[], now: number): number {
  return -(Math.floor(now / 60_000) + minutesToExpiry(expiries, now));
}
