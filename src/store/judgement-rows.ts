import type { JudgeVerdict, ReviewDecision } from "./rows.js";

/** What a judge said of an output (`judgements`): asked, then judged once. */
export interface JudgementRow {
  job_key: string;
  idx: number;
  state: "asking" | "judged";
  model: string;
  verdict: JudgeVerdict | null;
  reason: string | null;
  /** The judge's whole answer, as the gateway gave it (cleaned of controls). */
  answer: string | null;
  cost: number | null;
  asked_at: number;
  judged_at: number | null;
}

/** A judged output in a report's scope, beside what a person decided of it. */
export interface JudgedOutputRow {
  job_key: string;
  job_id: string;
  label: string;
  take: number;
  idx: number;
  verdict: JudgeVerdict;
  reason: string | null;
  model: string;
  cost: number | null;
  /** A person's decision, when one was made: it wins over the judge's. */
  decision: ReviewDecision | null;
  note: string | null;
}
