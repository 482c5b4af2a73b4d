import { type TaskRow, TaskState } from "../../src/store/index.js";

/** A recorded task for pure unit tests: a pending image task, with `fields` laid over it. */
export function taskRow(fields: Partial<TaskRow> = {}): TaskRow {
  const key = fields.key ?? "key-1";
  return {
    key,
    run_id: 1,
    job_id: "job-1",
    label: `job-1 ${key}`,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: "{}",
    upstream_key: null,
    state: TaskState.Pending,
    task_id: null,
    attempts: 0,
    unknown_submits: 0,
    claimed_by: null,
    progress: null,
    polls: 0,
    next_poll_at: null,
    estimated_cost: null,
    cost: null,
    reason: null,
    created_at: 0,
    submitted_at: null,
    started_at: null,
    completed_at: null,
    done_at: null,
    updated_at: 0,
    placeholder: 0,
    vars: null,
    repeat_index: 0,
    take: 1,
    paid_run: null,
    ...fields,
  };
}
