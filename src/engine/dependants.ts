import { readFileSync } from "node:fs";
import type { CheckedJob } from "../families/index.js";
import {
  dropPlaceholders,
  type JobRow,
  JobState,
  rebindPending,
  type Store,
} from "../store/index.js";
import { dependantJobs, skippedDependants } from "./jobs.js";

/**
 * The store side of pipelines: recording a finished job's dependants (one per output, per
 * template and repeat) and the skipped stand-ins of a failed one.
 */

export interface RecordedDependant {
  row: JobRow;
  /** First recorded now (not adopted from an earlier run). */
  fresh: boolean;
  /** Why it cannot be sent; null when it can. */
  problem: string | null;
}

/**
 * Records the dependants of `upstream`'s outputs. Stand-ins left by an earlier failure of it go,
 * and real dependants it left skipped come back; a dependant recorded earlier and still pending
 * gets its request bound afresh (a link bound then may have expired since).
 */
export function recordDependants(
  store: Store,
  runId: number,
  templates: readonly CheckedJob[],
  upstream: JobRow,
  now: number,
): RecordedDependant[] {
  dropPlaceholders(store, upstream.key);
  const outputs = store.outputsOf(upstream.key);
  const recorded: RecordedDependant[] = [];
  for (const output of outputs) {
    const link =
      output.url !== null && (output.expires_at ?? Number.POSITIVE_INFINITY) > now
        ? output.url
        : null;
    const jobs = dependantJobs(
      templates,
      {
        key: upstream.key,
        label: upstream.label,
        outputIndex: output.idx,
        outputs: outputs.length,
      },
      {
        label: outputs.length > 1 ? `${upstream.label} (output ${output.idx + 1})` : upstream.label,
        kind: output.content_type?.startsWith("text/") === true ? "text" : "media",
        url: link,
        dataUri: () => dataUriOf(output.path, output.content_type),
        text: () => textOf(output.path),
      },
    );
    const fresh = store.addJobs(
      runId,
      jobs.map((entry) => entry.job),
      now,
    );
    for (const { job, problem } of jobs) {
      let row = store.job(job.key);
      if (row === undefined) continue;
      // Skipped when the upstream failed once; it has its input now.
      if (
        row.state === JobState.Skipped &&
        store.move(row.key, JobState.Skipped, JobState.Pending, { reason: null }, now)
      )
        row = { ...row, state: JobState.Pending, reason: null };
      if (
        problem === null &&
        row.state === JobState.Pending &&
        rebindPending(store, row.key, job.request)
      )
        row.request = job.request;
      recorded.push({ row, fresh: fresh.has(job.key), problem });
    }
  }
  return recorded;
}

/**
 * Records the dependants of a failed upstream as skipped, with the reason; returns those it
 * moved (stand-ins already skipped, or moved on by another process, are left alone).
 */
export function recordSkipped(
  store: Store,
  runId: number,
  templates: ReadonlyMap<string, readonly CheckedJob[]>,
  upstream: JobRow,
  reason: string,
  now: number,
): { row: JobRow; fresh: boolean; reason: string }[] {
  const jobs = skippedDependants(templates, {
    key: upstream.key,
    label: upstream.label,
    jobId: upstream.job_id,
  });
  if (jobs.length === 0) return [];
  const why = `upstream ${upstream.label} failed: ${reason}`;
  return store.transaction(() => {
    const fresh = store.addJobs(runId, jobs, now);
    const moved: { row: JobRow; fresh: boolean; reason: string }[] = [];
    // Real dependants of an earlier success of it, not sent yet, cannot be sent now either.
    const waiting = store
      .dependantsOf(upstream.key)
      .filter((row) => row.placeholder !== 1 && row.state === JobState.Pending);
    for (const job of [...waiting.map((row) => ({ key: row.key })), ...jobs]) {
      if (!store.move(job.key, JobState.Pending, JobState.Skipped, { reason: why }, now)) continue;
      const row = store.job(job.key);
      if (row !== undefined) moved.push({ row, fresh: fresh.has(job.key), reason: why });
    }
    return moved;
  });
}

function dataUriOf(file: string | null, contentType: string | null): string {
  if (file === null) throw new Error("the upstream output is not on disk");
  return `data:${contentType ?? "image/png"};base64,${readFileSync(file).toString("base64")}`;
}

function textOf(file: string | null): string {
  // The file holds the answer with one trailing newline added.
  return file === null ? "" : readFileSync(file, "utf8").replace(/\n$/, "");
}
