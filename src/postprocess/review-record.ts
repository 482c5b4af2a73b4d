import path from "node:path";
import { isoTime } from "../core/clock.js";
import { redactDataUris } from "../core/values.js";
import {
  type ReportOutput,
  type ReportTask,
  type ReviewDecision,
  type TaskVariables,
  variablesOf,
} from "../store/index.js";

/** One line of `results.jsonl`: an output with its job, request, file and checks. */
export interface ReviewRecord extends TaskVariables {
  job: string;
  label: string;
  key: string;
  state: string;
  task_id: string | null;
  model: string | null;
  prompt: string | null;
  /** The request's other fields (Data URIs shortened). */
  parameters: Record<string, unknown>;
  /** Which of the task's outputs, counted from 1 as `gwrun status` and labels count them. */
  output: number;
  /** Paths relative to the run's output folder. */
  file: string | null;
  thumbnail: string | null;
  poster: string | null;
  content_type: string | null;
  sha256: string | null;
  bytes: number | null;
  /** What the task cost (all of its outputs together). */
  cost: number | null;
  /** What it was priced at before it ran (`prices:` or the contract); null when unknown. */
  estimated_cost: number | null;
  /** Made by the built-in simulator: a stand-in, not a paid output. */
  simulator: boolean;
  /** When the gateway took the task, finished it, and its file landed (ISO 8601). */
  submitted_at: string | null;
  completed_at: string | null;
  downloaded_at: string | null;
  checks: { state: "ok" | "failed" | null; problems: string[]; [measured: string]: unknown };
  /** What a reviewer decided about it; null until reviewed. */
  review: { decision: ReviewDecision; note: string | null; by?: string } | null;
  /** What a judge said of it (`checks.judge`): a suggestion, never a decision; null unjudged. */
  judge: JudgeSuggestion | null;
  /** What stands: a person's decision, which always wins, else the judge's suggestion. */
  /** `by`: who decided — a person, an agent (`gwrun mcp`), or the judge's suggestion. */
  decision: { value: ReviewDecision; by: "person" | "agent" | "judge" } | null;
  /** Of a job with `select:`: one of the best takes of its group (absent for other jobs). */
  selected?: boolean;
}

export interface JudgeSuggestion {
  model: string;
  verdict: "pass" | "fail" | "undecided";
  reason: string | null;
  /** The score it stated, when asked for one (`pass: { score_at_least }`). */
  score?: number;
}

/** Fields shown as the prompt, not as parameters. */
const PROMPT_FIELDS = ["prompt", "messages", "input", "contents", "system"];

/** The request's words: `prompt`, else the last message of a text request. */
export function promptOf(body: Record<string, unknown>): string | null {
  if (typeof body.prompt === "string") return body.prompt;
  if (typeof body.input === "string") return body.input;
  const messages = Array.isArray(body.messages) ? body.messages : body.contents;
  if (!Array.isArray(messages)) return null;
  const last = messages.at(-1) as { content?: unknown; parts?: { text?: unknown }[] } | undefined;
  if (typeof last?.content === "string") return last.content;
  const text = last?.parts?.find((part) => typeof part.text === "string")?.text;
  return typeof text === "string" ? text : null;
}

/** The request's fields other than the model and the prompt. */
export function parametersOf(body: Record<string, unknown>): Record<string, unknown> {
  const rest = Object.entries(body).filter(
    ([field]) => field !== "model" && !PROMPT_FIELDS.includes(field),
  );
  return redactDataUris(Object.fromEntries(rest)) as Record<string, unknown>;
}

/** A path below the output folder, with forward slashes; null when there is none. */
export function relativeTo(outputDir: string, file: string | null): string | null {
  if (file === null) return null;
  // The common case without path.relative's normalising, which shows at 100k outputs.
  const prefix = outputDir.endsWith(path.sep) ? outputDir : `${outputDir}${path.sep}`;
  const relative = file.startsWith(prefix)
    ? file.slice(prefix.length)
    : path.relative(outputDir, file);
  return path.sep === "/" ? relative : relative.split(path.sep).join("/");
}

/** The results.jsonl line of one output on disk. */
export function reviewRecord(
  outputDir: string,
  job: ReportTask,
  output: ReportOutput,
): ReviewRecord {
  const body = JSON.parse(job.request) as Record<string, unknown>;
  const { judge = null, ...measured } = (
    output.checks === null ? { problems: [] } : JSON.parse(output.checks)
  ) as { judge?: JudgeSuggestion; problems: string[] };
  const review =
    output.review === null
      ? null
      : {
          decision: output.review,
          note: output.review_note,
          // Who decided when not a person at the viewer ("agent").
          ...(output.review_by == null ? {} : { by: output.review_by }),
        };
  return {
    job: job.job_id,
    label: job.label,
    key: job.key,
    state: job.state,
    task_id: job.task_id,
    model: typeof body.model === "string" ? body.model : null,
    prompt: promptOf(body),
    parameters: parametersOf(body),
    ...variablesOf(job),
    output: output.idx + 1,
    file: relativeTo(outputDir, output.path),
    thumbnail: relativeTo(outputDir, output.thumbnail),
    poster: relativeTo(outputDir, output.poster),
    content_type: output.content_type,
    sha256: output.sha256,
    bytes: output.bytes,
    cost: job.cost,
    estimated_cost: job.estimated_cost,
    simulator: job.simulated,
    submitted_at: isoTime(job.submitted_at),
    completed_at: isoTime(job.completed_at),
    downloaded_at: isoTime(output.downloaded_at),
    checks: { state: output.check_state, ...measured },
    review,
    judge,
    decision: decisionOf(review, judge),
  };
}

/**
 * A reviewer's decision (a person's, or an agent's through `gwrun mcp`), else what the judge
 * suggests (an undecided judge suggests nothing).
 */
export function decisionOf(
  review: { decision: ReviewDecision; by?: string } | null,
  judge: JudgeSuggestion | null,
): ReviewRecord["decision"] {
  if (review !== null)
    return { value: review.decision, by: review.by === "agent" ? "agent" : "person" };
  if (judge === null || judge.verdict === "undecided") return null;
  return { value: judge.verdict === "pass" ? "approved" : "rejected", by: "judge" };
}
