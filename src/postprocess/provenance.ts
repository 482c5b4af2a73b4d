import { isoTime } from "../core/clock.js";
import { redactDataUris } from "../core/values.js";
import { type OutputRow, type TaskRow, variablesOf } from "../store/index.js";

/**
 * An output's provenance sidecar (`<file>.json`): job, key, request, task, cost, hash and
 * timings (ISO 8601), plus whatever `extra` adds (the checks), so an asset stays traceable
 * once it leaves the folder. `row` is the task as recorded, with its times.
 */
export function provenanceText(
  row: TaskRow,
  index: number,
  file: {
    sha256: string | null;
    bytes: number | null;
    contentType: string | null;
    downloadedAt: number | null;
  },
  extra: Record<string, unknown> = {},
): string {
  return `${JSON.stringify(
    {
      job: row.job_id,
      label: row.label,
      key: row.key,
      // The run that asked the gateway for it (and paid), which a later run resuming it keeps.
      run: row.paid_run ?? row.run_id,
      // Counted from 1, as `gwrun status` and labels count outputs.
      output: index + 1,
      ...variablesOf(row),
      task_id: row.task_id,
      family: row.family,
      endpoint: row.endpoint,
      request: redactDataUris(JSON.parse(row.request)),
      cost: row.cost,
      sha256: file.sha256,
      bytes: file.bytes,
      content_type: file.contentType,
      submitted_at: isoTime(row.submitted_at),
      completed_at: isoTime(row.completed_at),
      downloaded_at: isoTime(file.downloadedAt),
      ...extra,
    },
    null,
    2,
  )}\n`;
}

/** The sidecar of an output as the store records it, for one that has none on disk. */
export function outputProvenance(
  row: TaskRow,
  output: Pick<
    OutputRow,
    "idx" | "sha256" | "bytes" | "content_type" | "downloaded_at" | "check_state" | "checks"
  >,
): string {
  const measured = output.checks === null ? { problems: [] } : JSON.parse(output.checks);
  return provenanceText(
    row,
    output.idx,
    {
      sha256: output.sha256,
      bytes: output.bytes,
      contentType: output.content_type,
      downloadedAt: output.downloaded_at,
    },
    { checks: { state: output.check_state, ...measured } },
  );
}
