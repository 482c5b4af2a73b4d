import type { TaskState } from "./states.js";

/** The rows the store keeps, as every adapter returns them (column names as in the schema). */

export interface RunRow {
  id: number;
  name: string;
  manifest_path: string;
  manifest_text: string;
  base_url: string;
  output_dir: string;
  status: string;
  exit_code: number | null;
  started_at: number;
  finished_at: number | null;
  /** The schedule tick of a scheduled run (ms); null otherwise. */
  tick: number | null;
  /** Why the run stopped before its end ("the gateway balance ran out: …"); null otherwise. */
  stop_reason: string | null;
  /** Its tasks by state as it ended (JSON); null while it runs, or recorded before they were kept. */
  end_states?: string | null;
  /**
   * The project folder the run was started in, as that process saw it. Paths in the record
   * are relative to the project folder (the store port gives them back absolute).
   */
  project_dir: string | null;
  /** What each of its `from:` jobs makes per upstream output (JSON); null when not recorded. */
  dependant_rules: string | null;
  /**
   * The object storage it publishes to, as resolved when it began (a JSON list of s3:// URLs);
   * null when it publishes nowhere, or was recorded before targets were kept.
   */
  publish_to: string | null;
  /** `limits.unknown_cost` of its manifest: what each task of unknown price is counted at. */
  unknown_cost: number | null;
}

/** Something a run said while it went on (rate limiting, a stop), kept for viewers. */
export interface RunNotice {
  at: number;
  /** The engine event it came from: `gateway:rate-limited`, `run:stopping`. */
  type: string;
  message: string;
}

/**
 * The body of a URL a run's `rows:` named (a published spreadsheet), as the run read it: its
 * `resume` reads these rows again instead of fetching the URL (table `run_row_sources`).
 */
export interface RowSource {
  url: string;
  /** What the body is read as: csv, tsv, jsonl or json. */
  format: string;
  /** Hex sha256 of the body's bytes. */
  sha256: string;
  body: string;
  fetched_at: number;
}

/** A run as it is first recorded. */
export type NewRun = Omit<
  RunRow,
  | "id"
  | "status"
  | "exit_code"
  | "finished_at"
  | "tick"
  | "stop_reason"
  | "project_dir"
  | "dependant_rules"
  | "publish_to"
  | "unknown_cost"
> & {
  tick?: number;
  project_dir?: string;
  /** The s3:// URLs it publishes to. */
  publish_to?: readonly string[];
  unknown_cost?: number;
};

/** One task: a request sent (or to be sent) once, under its key (table `jobs`). */
export interface TaskRow {
  key: string;
  run_id: number;
  /** The manifest job it came from. */
  job_id: string;
  label: string;
  family: string | null;
  lane: string;
  endpoint: string;
  request: string;
  upstream_key: string | null;
  state: TaskState;
  task_id: string | null;
  attempts: number;
  unknown_submits: number;
  claimed_by: string | null;
  progress: number | null;
  polls: number;
  next_poll_at: number | null;
  estimated_cost: number | null;
  cost: number | null;
  reason: string | null;
  created_at: number;
  submitted_at: number | null;
  started_at: number | null;
  completed_at: number | null;
  done_at: number | null;
  updated_at: number;
  /** 1 for a stand-in for the dependants of a failed upstream (never submitted). */
  placeholder: number;
  /** JSON of its matrix variables; null for a job without a matrix. */
  vars: string | null;
  /** Which of the job's repeats it is, from 0. */
  repeat_index: number;
  /** 1 for the first take; a regeneration after review is the next. */
  take: number;
  /** The run whose submit the gateway took: the task's cost is that run's spend. */
  paid_run: number | null;
}

/** A task as a run first records it. */
export interface NewTask {
  key: string;
  jobId: string;
  label: string;
  family: string | null;
  lane: string;
  endpoint: string;
  request: string;
  upstreamKey: string | null;
  estimatedCost: number | null;
  /** A stand-in for the dependants of a failed upstream. */
  placeholder?: boolean;
  /** Its matrix variables (none without a matrix). */
  vars?: Record<string, unknown>;
  repeatIndex?: number;
  /** Default 1. */
  take?: number;
}

export interface OutputRow {
  job_key: string;
  idx: number;
  url: string | null;
  expires_at: number | null;
  state: "pending" | "downloaded" | "expired" | "failed";
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  content_type: string | null;
  reason: string | null;
  /** Post-processing: "ok" | "failed", null until checked. */
  check_state: "ok" | "failed" | null;
  /** JSON of the checks: problems and what was measured. */
  checks: string | null;
  thumbnail: string | null;
  poster: string | null;
  /** When its file landed (ms); null until then. */
  downloaded_at: number | null;
}

/** What of an output is published: the file, a review image, its provenance sidecar, or a rendition. */
export type PublishedPart = "file" | "thumbnail" | "poster" | "sidecar" | `rendition:${string}`;

/** An object an output was published as, verified after its upload (`publications`). */
export interface Publication {
  job_key: string;
  idx: number;
  /** `s3://bucket/prefix` as the manifest names it. */
  target: string;
  part: PublishedPart;
  object_key: string;
  bytes: number;
  sha256: string;
  etag: string;
  published_at: number;
}

/** Where an output was delivered into another output folder than its own (`output_copies`). */
export interface OutputCopy {
  job_key: string;
  idx: number;
  output_dir: string;
  path: string;
  thumbnail: string | null;
  poster: string | null;
  copied_at: number;
}

/** What a report shows of a task. */
export type ReportTask = Pick<
  TaskRow,
  | "key"
  | "job_id"
  | "label"
  | "state"
  | "reason"
  | "request"
  | "estimated_cost"
  | "cost"
  | "task_id"
  | "vars"
  | "repeat_index"
  | "take"
  | "upstream_key"
  | "submitted_at"
  | "completed_at"
> & {
  /** Made by the built-in simulator: the run that paid for it talked to it (stand-ins). */
  simulated: boolean;
};

export type ReviewDecision = "approved" | "rejected";

/** A judge's verdict on an output: passed, failed, or an answer that could not be read. */
export type JudgeVerdict = "pass" | "fail" | "undecided";

/** A reviewer's decision on one output (`reviews`). */
export interface ReviewRow {
  job_key: string;
  idx: number;
  decision: ReviewDecision;
  note: string | null;
  decided_at: number;
  /** Who decided when not a person at the viewer ("agent": through `gwrun mcp`); null: a person. */
  reviewer: string | null;
}

/** What a report shows of an output, with its review (null fields when not reviewed). */
export type ReportOutput = Pick<
  OutputRow,
  | "idx"
  | "state"
  | "path"
  | "bytes"
  | "sha256"
  | "content_type"
  | "check_state"
  | "checks"
  | "thumbnail"
  | "poster"
  | "downloaded_at"
> & { review: ReviewDecision | null; review_note: string | null; review_by?: string | null };

/** One output with its task, as reports read them. */
export interface ReportRow {
  task: ReportTask;
  /** Null for a task that has no outputs recorded. */
  output: ReportOutput | null;
}

/** A task that ended without its outputs, as reports list it. */
export type FailureRow = Pick<TaskRow, "key" | "job_id" | "label" | "state" | "reason">;

/** The tasks of a report's scope by state, their downloaded outputs and their spend. */
export interface ReportSummary {
  states: Record<string, number>;
  outputs: number;
  /** What the scope's tasks cost, whichever run paid. */
  spent: number;
  /** What the run of a run's scope paid itself (its submits); a folder's: `spent`. */
  paid: number;
  /** Outputs reviewed, by decision. */
  reviews: Record<ReviewDecision, number>;
}

/** A run's summary, with how many of its own tasks it finished since it started. */
export interface RunSummary extends ReportSummary {
  finished: number;
}

/** A downloaded output as a review grid shows it: no request, no measurements. */
export interface GridRow {
  key: string;
  job_id: string;
  label: string;
  vars: string | null;
  repeat_index: number;
  take: number;
  idx: number;
  content_type: string | null;
  /** 1 when a thumbnail or poster was made. */
  pictured: number;
  check_state: "ok" | "failed" | null;
  review: ReviewDecision | null;
  review_note: string | null;
  /** Who decided: a shared viewer's reviewer, "agent" (`gwrun mcp`); null: the person at the viewer. */
  review_by: string | null;
  /** A judge's verdict and reason (a suggestion); null when no judge has judged it. */
  judge_verdict: JudgeVerdict | null;
  judge_reason: string | null;
}

/** A task's times, for a timeline (ms since the epoch; null where it has not got there). */
export interface TimelineRow {
  key: string;
  job_id: string;
  label: string;
  state: TaskState;
  reason: string | null;
  queued_at: number;
  submitted_at: number | null;
  completed_at: number | null;
  downloaded_at: number | null;
  done_at: number | null;
  /** Its last move (a failure's time). */
  updated_at: number;
}

/** What a text task's answer was, as stored (`text_answers`). */
export interface TextAnswerRow {
  job_key: string;
  format: string;
  model: string | null;
  text: string;
  choices: number;
  finish_reason: string | null;
  /** JSON: the usage object in the format's own fields. */
  usage: string | null;
  /** JSON: `[{id, name, arguments}]`, with `partial` and `raw_arguments` on a call cut off. */
  tool_calls: string;
  /** What the model said in declining (`""` for no words); null when it answered. */
  refusal: string | null;
  streamed: number;
  answered_at: number;
}

/** A take of a request with one of its downloaded outputs, for `select:` (`takesOf`). */
export interface TakeRow {
  key: string;
  state: string;
  repeat_index: number;
  take: number;
  /** The output's index; null for a take with no downloaded output. */
  idx: number | null;
  /** The output's checks (JSON): the job's rule and the judge's score. */
  checks: string | null;
  /** A person's decision on the output. */
  review: "approved" | "rejected" | null;
}
