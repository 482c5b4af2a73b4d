import { roundMoney } from "../core/money.js";
import type { JudgedOutputRow, Store } from "../store/index.js";
import { findRun } from "./store.js";

/**
 * `gwrun judge-report [run]`: how a run's judges and its people agreed. An output a person
 * decided is compared with its judge's verdict (pass ~ approved, fail ~ rejected); an
 * undecided verdict agrees with no one and is counted apart. A person's decision always wins:
 * these figures say how far the judge can be trusted where no one looked.
 */
export interface JudgeReport {
  run: { id: number; name: string };
  /** Outputs judged, by verdict. */
  judged: { pass: number; fail: number; undecided: number };
  /** New takes the judges' rejections asked for. */
  retakes: number;
  /** What the judges' calls cost in all, and per output judged (null when nothing was judged). */
  cost: { total: number; perOutput: number | null };
  /** Judged outputs a person decided too, and how they compare. */
  reviewed: number;
  agreed: number;
  /** agreed / compared (undecided verdicts left out); null when none can be compared. */
  agreement: number | null;
  /** The judge passed what a person rejected, and rejected what a person approved. */
  disagreements: { passedRejected: number; rejectedApproved: number };
  /** Every output where judge and person disagreed: the person's decision stands. */
  overruled: JudgedOutputRow[];
}

/** `ref`: a run id (default: the latest run). */
export async function judgeReportOf(
  store: Store,
  location: string,
  ref: string | undefined,
): Promise<JudgeReport> {
  const run = await findRun(store, location, ref);
  const rows = await store.judgedOutputs({ run: run.id });
  const judged = { pass: 0, fail: 0, undecided: 0 };
  for (const row of rows) judged[row.verdict] += 1;
  const reviewed = rows.filter((row) => row.decision !== null);
  const compared = reviewed.filter((row) => row.verdict !== "undecided");
  const overruled = compared.filter((row) => !agrees(row));
  const total = roundMoney(rows.reduce((sum, row) => sum + (row.cost ?? 0), 0));
  const tasks = await store.tasksOf(run.id);
  const rejectedKeys = new Set(
    rows.filter((row) => row.verdict === "fail").map((row) => row.job_key),
  );
  return {
    run: { id: run.id, name: run.name },
    judged,
    retakes: tasks.filter((task) => task.take > 1 && rejectedKeys.has(previousTake(tasks, task)))
      .length,
    cost: { total, perOutput: rows.length === 0 ? null : roundMoney(total / rows.length) },
    reviewed: reviewed.length,
    agreed: compared.length - overruled.length,
    agreement:
      compared.length === 0 ? null : (compared.length - overruled.length) / compared.length,
    disagreements: {
      passedRejected: overruled.filter((row) => row.verdict === "pass").length,
      rejectedApproved: overruled.filter((row) => row.verdict === "fail").length,
    },
    overruled,
  };
}

function agrees(row: JudgedOutputRow): boolean {
  return (row.verdict === "pass") === (row.decision === "approved");
}

/** The key of the take before `task` under the same label, or "" for a first take. */
function previousTake(
  tasks: readonly { key: string; label: string; take: number }[],
  task: { label: string; take: number },
): string {
  const root = task.label.replace(/-t\d+$/, "");
  const label = task.take === 2 ? root : `${root}-t${task.take - 1}`;
  return tasks.find((each) => each.label === label)?.key ?? "";
}
