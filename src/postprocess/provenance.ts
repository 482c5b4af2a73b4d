import { isoTime } from "../core/clock.js";
import { redactDataUris } from "../core/values.js";
import { type TaskRow, variablesOf } from "../store/index.js";

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
      output: index,
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
