import { BUDGET_ADVICE } from "./admission.js";
import type { RunEnd, StateCounts } from "./events.js";
import { PERIOD_ADVICE, PERIOD_STOP } from "./period-budgets.js";

/** Labels of failed tasks named in the hint; the rest are counted. */
const NAMED_FAILURES = 3;

/** What the next step is worked out from: the run's ending and counts, and its store's name. */
export interface NextStepOf {
  runId: number | null | undefined;
  end: RunEnd;
  counts: Readonly<StateCounts>;
  /** Labels of the failed tasks, first first (repeats allowed). */
  failedLabels: readonly string[];
  /**
   * The store when the command must name it (`--db FILE`, or `--store` with a connection
   * string shown without its password); else undefined.
   */
  db: string | undefined;
  /** Why the run stopped, as it said so: which budget a budget stop met. */
  reason?: string;
}

/**
 * What to do after this ending: the command to go on with, or why there is none. The run's
 * summary prints it after `next:`, and a notification carries it.
 */
export function nextStep(of: NextStepOf): string | undefined {
  const { db, counts } = of;
  const flag = db !== undefined && /^postgres(ql)?:\/\//i.test(db) ? "--store" : "--db";
  const run = `${of.runId ?? ""}${db === undefined ? "" : ` ${flag} ${shellWord(db)}`}`;
  switch (of.end) {
    case "interrupted":
      return `gwrun resume ${run}`;
    case "budget":
      return of.reason?.startsWith(PERIOD_STOP) === true ? PERIOD_ADVICE : BUDGET_ADVICE;
    case "balance":
      return `top up the gateway account, then gwrun resume ${run}`;
    case "failed": {
      const failed = (counts.failed ?? 0) + (counts.rejected ?? 0) + (counts.skipped ?? 0);
      // Stopped by a local fault (a full disk) with nothing failed: fix it, then go on.
      if (failed + (counts.expired ?? 0) === 0) return `gwrun resume ${run}`;
      const flags = [failed > 0 ? "--failed" : "", (counts.expired ?? 0) > 0 ? "--expired" : ""];
      const labels = [...new Set(of.failedLabels)];
      const named = labels.slice(0, NAMED_FAILURES);
      const more = failed + (counts.expired ?? 0) - named.length;
      const which =
        named.length === 0 ? "" : ` (${named.join(", ")}${more > 0 ? ` and ${more} more` : ""})`;
      return `gwrun retry ${flags.filter((flag) => flag !== "").join(" ")} ${run}${which}`;
    }
    default:
      return undefined;
  }
}

/** A path as one shell word: quoted when it holds anything a shell would split or expand. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
