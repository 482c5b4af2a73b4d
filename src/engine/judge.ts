import path from "node:path";
import { coerceError } from "../core/errors.js";
import { readRecorded, textOf } from "../core/file-gate.js";
import { partialDir, writeWhole } from "../core/output-files.js";
import { judgeRequest, ruleFor, taskCost, usageCost } from "../families/index.js";
import { gatewayText } from "../gateway/index.js";
import type { JudgeSpec } from "../manifest/index.js";
import { type OutputRow, type TaskRow, variablesOf } from "../store/index.js";
import type { RunContext } from "./context.js";
import { type ReadVerdict, readVerdict, scoreOf } from "./judge-verdict.js";
import { type CallTally, pacedCall } from "./paced-call.js";

/**
 * A judge's call for each output of a task, made once: `asking` is recorded before the call;
 * the answer is written to `<output dir>/.judge/` before its verdict is recorded, so a process
 * stopped in between records it from that file on the next run instead of asking (and paying)
 * again. A judgement recorded is read, never asked again. The call goes through the run's
 * pace and retry policy like any text task (429 slows the pace, 5xx is retried).
 */

/** The judge's call failed after its retries: the output waits, downloaded, to be judged later. */
export class JudgeUnavailable extends Error {}

export interface Judged extends ReadVerdict {
  idx: number;
  model: string;
  /** What this process paid for the call now (0 when it was recorded before). */
  paid: number;
}

/** The judge's answer as kept on disk between the call and its recording. */
interface KeptAnswer {
  answer: string;
  cost: number | null;
}

export async function judgeOutputs(
  task: TaskRow,
  outputs: readonly OutputRow[],
  posters: ReadonlyMap<number, string | null>,
  judge: JudgeSpec,
  context: RunContext,
): Promise<Judged[]> {
  const judged: Judged[] = [];
  for (const output of outputs) {
    if (output.path === null) continue;
    judged.push(
      await judgeOne(
        task,
        { ...output, path: output.path },
        posters.get(output.idx) ?? null,
        judge,
        context,
      ),
    );
  }
  return judged;
}

async function judgeOne(
  task: TaskRow,
  output: OutputRow & { path: string },
  poster: string | null,
  judge: JudgeSpec,
  context: RunContext,
): Promise<Judged> {
  const { store, clock } = context;
  const asked = await store.askJudge(
    { key: task.key, idx: output.idx, model: judge.model },
    clock.now(),
  );
  if (asked.state === "judged" && asked.verdict !== null)
    return {
      idx: output.idx,
      model: asked.model,
      verdict: asked.verdict,
      reason: asked.reason,
      ...scored(asked.answer, judge),
      paid: 0,
    };
  const file = answerFile(context.outputDir, task, output.idx);
  let kept = await keptAnswer(file);
  let paid = 0;
  if (kept === undefined) {
    kept = await askJudge(task, output, poster, judge, context);
    paid = kept.cost ?? 0;
    await writeWhole(
      file,
      `${JSON.stringify(kept)}\n`,
      partialDir(context.outputDir),
      context.files,
    );
  }
  const read = readVerdict(kept.answer, judge.pass);
  const recorded = await store.recordJudgement(
    { key: task.key, idx: output.idx, ...read, answer: kept.answer, cost: kept.cost },
    clock.now(),
  );
  // Recorded by another process first: its verdict stands, and its payment is its own.
  if (!recorded) {
    const row = (await store.judgementsOf(task.key)).find((each) => each.idx === output.idx);
    if (row?.verdict !== undefined && row.verdict !== null)
      return {
        idx: output.idx,
        model: row.model,
        verdict: row.verdict,
        reason: row.reason,
        ...scored(row.answer, judge),
        paid: 0,
      };
  }
  return { idx: output.idx, model: judge.model, ...read, paid };
}

/** The score a recorded answer states, when the judge asks for one. */
function scored(answer: string | null, judge: JudgeSpec): { score?: number } {
  const score = scoreOf(answer, judge.pass);
  return score === undefined ? {} : { score };
}

/** Where an output's judge answer waits to be recorded. */
function answerFile(outputDir: string, task: TaskRow, idx: number): string {
  return path.join(outputDir, ".judge", `${task.key}-${idx}.json`);
}

/** A kept answer is a few sentences and its cost. */
const KEPT_ANSWER_BYTES = 64 * 1024;

async function keptAnswer(file: string): Promise<KeptAnswer | undefined> {
  try {
    const read = textOf(await readRecorded(file, KEPT_ANSWER_BYTES));
    if ("problem" in read) return undefined;
    const kept = JSON.parse(read.text) as Partial<KeptAnswer>;
    if (typeof kept.answer !== "string") return undefined;
    return { answer: kept.answer, cost: typeof kept.cost === "number" ? kept.cost : null };
  } catch {
    // None (the usual case), or a file cut short: asked again.
    return undefined;
  }
}

async function askJudge(
  task: TaskRow,
  output: OutputRow & { path: string },
  poster: string | null,
  judge: JudgeSpec,
  context: RunContext,
): Promise<KeptAnswer> {
  const show = context.postprocess?.judgeImages;
  if (show === undefined) throw new Error("this run cannot show a judge its outputs");
  const images = await show.call(context.postprocess, output, poster, judge, context.clock.now());
  const request = judgeRequest(judge, questionFor(task, judge.ask), images);
  const { model: _model, ...withoutModel } = request.body;
  // Native calls carry the model in the path.
  const body = judge.endpoint === "native" ? withoutModel : request.body;
  const tally: CallTally = { unknown: 0 };
  await context.pace.acquire(context.signal).catch(() => undefined);
  const answer = await pacedCall(
    `judge ${task.label}`,
    () => context.client.callText(judge.endpoint, request.path, body, { signal: context.signal }),
    context,
    tally,
  ).catch((error: unknown) => {
    throw new JudgeUnavailable(`the judge could not be asked: ${coerceError(error).message}`, {
      cause: error,
    });
  });
  context.pace.succeeded();
  const { prices, limits } = context.settings;
  const rule = ruleFor(prices, request.body);
  const cost =
    usageCost(rule, answer.usage) ??
    taskCost(undefined, request.body, rule) ??
    limits.unknownCost ??
    null;
  return { answer: gatewayText(answer.refusal ?? answer.text, 2_000), cost };
}

/** The judge's question for a task: `{{prompt}}`, `{{label}}`, `{{job}}`, its variables and row. */
export function questionFor(task: TaskRow, ask: string): string {
  const body = JSON.parse(task.request) as Record<string, unknown>;
  const { vars } = variablesOf(task);
  const named: Record<string, unknown> = {
    ...vars,
    prompt: typeof body.prompt === "string" ? body.prompt : "",
    label: task.label,
    job: task.job_id,
  };
  return ask.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (text, name: string) => {
    let value: unknown = named;
    for (const part of name.split(".")) {
      value =
        value !== null && typeof value === "object"
          ? (value as Record<string, unknown>)[part]
          : undefined;
    }
    if (value === undefined) return text;
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}
