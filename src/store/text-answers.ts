import { statement } from "./statements.js";
import type { Store } from "./store.js";

/** What a text job's answer was, as stored (`text_answers`). */
export interface TextAnswerRow {
  job_key: string;
  format: string;
  model: string | null;
  text: string;
  choices: number;
  finish_reason: string | null;
  /** JSON: the usage object in the format's own fields. */
  usage: string | null;
  /** JSON: `[{id, name, arguments}]`. */
  tool_calls: string;
  streamed: number;
  answered_at: number;
}

/** Records (or replaces, when the job is redone) the answer of a text job. */
export function saveTextAnswer(store: Store, answer: TextAnswerRow): void {
  statement(
    store,
    `INSERT OR REPLACE INTO text_answers
         (job_key, format, model, text, choices, finish_reason, usage, tool_calls, streamed, answered_at)
       VALUES (@job_key, @format, @model, @text, @choices, @finish_reason, @usage, @tool_calls, @streamed, @answered_at)`,
  ).run(answer);
}

/** The stored answer of one text job. */
export function textAnswer(store: Store, key: string): TextAnswerRow | undefined {
  return statement(store, "SELECT * FROM text_answers WHERE job_key = ?").get(key) as
    | TextAnswerRow
    | undefined;
}

/** The stored answers of a run's text jobs, with each job's label, in the order recorded. */
export function textAnswersOf(store: Store, runId: number): (TextAnswerRow & { label: string })[] {
  return statement(
    store,
    `SELECT text_answers.*, jobs.label FROM run_jobs
         JOIN jobs ON jobs.key = run_jobs.key
         JOIN text_answers ON text_answers.job_key = jobs.key
       WHERE run_jobs.run_id = ? ORDER BY jobs.rowid`,
  ).all(runId) as (TextAnswerRow & { label: string })[];
}
