import * as z from "zod";

/**
 * A job's `select:`: of each group of takes of one request (its `repeat` tasks and their
 * retakes), the `best` highest scored are selected. `by: judge` ranks by the score the job's
 * judge states (`checks.judge.pass: { score_at_least }`); `by: score` ranks by the score
 * recorded of each output, which today is the judge's only, so it is the same ranking.
 */
export const selectSchema = z
  .strictObject({
    best: z.number().int().min(1).describe("how many takes of each group are selected"),
    by: z
      .enum(["judge", "score"])
      .describe("judge: the judge's score; score: the output's recorded score (the judge's)"),
  })
  .describe("select the best takes of each group of repeats by their score");

/** `select:` as read: how many of each group are selected, and by what. */
export interface SelectSpec {
  best: number;
  by: "judge" | "score";
}

/** A job's `select:` when it has the right shape (its errors are reported by the schema). */
export function selectOf(raw: unknown): SelectSpec | undefined {
  const parsed = selectSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
