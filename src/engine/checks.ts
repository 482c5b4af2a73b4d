import { seededRandom } from "../core/random.js";
import type { JudgeSpec } from "../manifest/index.js";
import { nextTakes } from "../plan/index.js";
import { type OutputRow, type TaskRow, TaskState } from "../store/index.js";
import { publish, type RunContext } from "./context.js";
import { type Judged, JudgeUnavailable, judgeOutputs } from "./judge.js";
import type { OutputVerdict, PostProcess } from "./post-process.js";

/**
 * A downloaded task's checks: its outputs go through post-processing, the verdicts are kept,
 * and a task whose checks all passed is done. A failed check fails the task, or with
 * `on_fail: retry` and attempts left sends it back to pending for a new task.
 *
 * A job with a judge (`checks.judge`) has each output that passed its own checks judged too;
 * a judge's "no" or an answer it cannot read is a failed check. With the judge's `on_fail:
 * retry` (or the checks') a rejected task is made again as a new take — a new key, a new seed
 * where the family has one — while takes stay within `retry.attempts`: the rejected take is
 * done, its files and verdicts kept, and starts no dependants.
 */
export type Checked =
  | { kind: "done"; spent: number }
  | { kind: "requeued"; task: TaskRow; spent: number }
  /** The judge rejected it: `take` is its new take, recorded pending. */
  | { kind: "retaken"; take: TaskRow; spent: number }
  | { kind: "failed"; reason: string; spent: number }
  /** The judge could not be asked: it stays downloaded, judged when the run is resumed. */
  | { kind: "unjudged"; reason: string; spent: number }
  /** Another process moved it on meanwhile. */
  | { kind: "lost"; spent: number };

/** `outputs`: the task's outputs when the caller has just recorded them; read otherwise. */
export async function checkTask(
  task: TaskRow,
  postprocess: PostProcess,
  context: RunContext,
  outputs?: OutputRow[],
): Promise<Checked> {
  const { store, clock, settings } = context;
  // As recorded: its sidecars carry the times the store holds (a row read fresh has them).
  const fresh = task.submitted_at !== null && task.completed_at !== null;
  const recorded = fresh ? task : { ...task, ...(await store.task(task.key)), state: task.state };
  const judge = postprocess.judgeOf?.(task.job_id);
  const rows = outputs ?? (await store.outputsOf(task.key));
  let judged: Judged[] = [];
  let processed: Awaited<ReturnType<PostProcess["process"]>>;
  try {
    processed = await postprocess.process(
      recorded,
      rows,
      judge === undefined
        ? undefined
        : async (found) => {
            judged = await judgeChecked(recorded, rows, found, judge, context);
          },
    );
  } catch (error) {
    if (!(error instanceof JudgeUnavailable)) throw error;
    return { kind: "unjudged", reason: error.message, spent: 0 };
  }
  const { verdicts, onFail } = processed;
  const spent = judged.reduce((sum, each) => sum + each.paid, 0);
  if (await context.writes.checks(task, verdicts)) {
    tellJudged(context, task, judged, null);
    return { kind: "done", spent };
  }
  const problems = verdicts.flatMap((verdict) => verdict.problems);
  if (problems.length === 0) return { kind: "lost", spent };
  const reason = `check failed: ${problems.join("; ")}`;
  const attempts = (await store.task(task.key))?.attempts ?? task.attempts;
  const rejected = judged.some((each) => each.verdict === "fail");
  const onlyJudge = verdicts.every((verdict) => verdict.problems.every(isJudgeProblem));
  if (judge !== undefined && rejected && onlyJudge) {
    const retry = (judge.on_fail ?? onFail) === "retry" && task.take < settings.retry.attempts;
    const checked = retry ? await retake(task, context, spent) : undefined;
    tellJudged(context, task, judged, checked?.kind === "retaken" ? checked.take.label : null);
    return checked ?? { kind: "failed", reason, spent };
  }
  tellJudged(context, task, judged, null);
  if (onFail === "report" || attempts >= settings.retry.attempts)
    return { kind: "failed", reason, spent };
  if (!(await store.requeue(task, [TaskState.Downloaded], reason, clock.now())))
    return { kind: "lost", spent };
  return {
    kind: "requeued",
    task: { ...task, state: TaskState.Pending, task_id: null, attempts, reason },
    spent,
  };
}

const JUDGE_PROBLEM = /^judge (said no|undecided)/;

function isJudgeProblem(problem: string): boolean {
  return JUDGE_PROBLEM.test(problem);
}

/** Judges the outputs that passed their own checks; the verdicts say what the judge said. */
async function judgeChecked(
  task: TaskRow,
  outputs: readonly OutputRow[],
  verdicts: OutputVerdict[],
  judge: JudgeSpec,
  context: RunContext,
): Promise<Judged[]> {
  const passed = new Set(verdicts.filter((verdict) => verdict.ok).map((verdict) => verdict.index));
  const posters = new Map(verdicts.map((verdict) => [verdict.index, verdict.poster]));
  const judged = await judgeOutputs(
    task,
    outputs.filter((output) => passed.has(output.idx)),
    posters,
    judge,
    context,
  );
  for (const each of judged) {
    const verdict = verdicts.find((candidate) => candidate.index === each.idx);
    if (verdict === undefined) continue;
    verdict.details = {
      ...verdict.details,
      judge: {
        model: each.model,
        verdict: each.verdict,
        reason: each.reason,
        ...(each.score === undefined ? {} : { score: each.score }),
      },
      ...(judge.select === undefined ? {} : { select: judge.select }),
    };
    if (each.verdict === "pass") continue;
    verdict.ok = false;
    const said = each.verdict === "fail" ? "said no" : "undecided";
    verdict.problems.push(`judge ${said}${each.reason === null ? "" : `: ${each.reason}`}`);
  }
  return judged;
}

/**
 * The rejected take is done (kept, its verdicts recorded) and its next take recorded. The
 * new take's seed is drawn from the rejected one's key, so a run stopped in between records
 * the same take again, not a second one.
 */
async function retake(task: TaskRow, context: RunContext, spent: number): Promise<Checked> {
  const { store, clock, runId } = context;
  const [take] = nextTakes([task], new Set([task.key]), seededRandom(`judge:${task.key}`));
  if (take === undefined) return { kind: "lost", spent };
  await store.recordTasks(runId, [take], clock.now());
  const events = await store.markDone(task, clock.now());
  if (events.length === 0) return { kind: "lost", spent };
  publish(context, events);
  const row = await store.task(take.key);
  if (row === undefined) return { kind: "lost", spent };
  context.emit({
    type: "task:added",
    key: row.key,
    job: row.job_id,
    label: row.label,
    upstream: task.key,
    family: row.family,
  });
  return { kind: "retaken", take: row, spent };
}

/** Tells reporters each verdict; `retake`: the new take's label when a rejection made one. */
function tellJudged(
  context: RunContext,
  task: TaskRow,
  judged: readonly Judged[],
  retake: string | null,
): void {
  for (const each of judged)
    context.emit({
      type: "task:judged",
      key: task.key,
      job: task.job_id,
      label: task.label,
      index: each.idx,
      verdict: each.verdict,
      reason: each.reason,
      retake: each.verdict === "fail" ? retake : null,
    });
}
