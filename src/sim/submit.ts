import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { canonicalJson, sha256 } from "../core/hash.js";
import type { Family, RequestBody } from "../families/index.js";
import { stringAt } from "../families/index.js";
import { type SimContext, scaled } from "./context.js";
import { countAccepted, countError } from "./counters.js";
import { sendError, sendJson } from "./http.js";
import { latencyOf } from "./latency.js";
import { type OutputPlan, planOutputs, priceOf } from "./outputs.js";
import { type TaskTicket, taskIdOf } from "./tasks.js";

/** What failed tasks report in `error.message`. */
const FAILURES = [
  "upstream model error: generation failed",
  "upstream timeout: the model did not answer in time",
  "generation failed: the upstream service is overloaded",
];

/** What one submit's exchange carries: the request, its answer, and when it arrived. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  arrivedAt: number;
}

/**
 * A media submit that passed validation: the safety filter (family A), the balance, then a
 * task whose whole course is decided now. Answers the submit envelope (family B's own form).
 */
export function acceptSubmit(
  context: SimContext,
  { req, res, arrivedAt }: Exchange,
  path: string,
  family: Family,
  body: RequestBody,
): void {
  const { options, counters, dice, ledger } = context;
  if (family.id === "image-a" && violatesSafety(body, options.unsafeWord)) {
    countError(counters, "safety");
    countError(counters, 400);
    sendError(res, 400, "prompt rejected by the safety filter; the request was not billed");
    return;
  }
  const requestHash = sha256(`${path}\n${canonicalJson(body)}`);
  const draw = dice.draw("task", requestHash);
  const fails = dice.roll("task-failure", requestHash, options.faults.taskFailureRate);
  const outputs = plannedOutputs(context, family, body, requestHash, draw);
  const price = priceOf(family, body, outputs, options.prices);
  const now = options.clock.now();
  if (!ledger.canAfford(price, now)) {
    countError(counters, 402);
    sendError(
      res,
      402,
      `insufficient balance: this task costs ${price} and the balance left is too low`,
    );
    return;
  }
  const ticket = ticketOf(context, { family, requestHash, draw, fails, outputs, price, now });
  const taskId = taskIdOf(ticket);
  if (outputs !== undefined) rememberPrompt(context, outputs.seed, body.prompt);
  ledger.hold(price, ticket.endsAt, fails);
  counters.tasks.created += 1;
  if (fails) counters.tasks.planned_failures += 1;
  countAccepted(counters, requestHash, arrivedAt);
  answerCreated(context, { req, res }, family, requestHash, taskId);
}

/** The outputs a submit will make, with the wrong-size and short-clip faults rolled. */
function plannedOutputs(
  context: SimContext,
  family: Family,
  body: RequestBody,
  requestHash: string,
  draw: number,
): OutputPlan | undefined {
  const { options, counters, dice } = context;
  // Repeats of one request get pictures of their own; the same repeat renders the same.
  const occurrence = counters.submits.byRequest[requestHash] ?? 0;
  return planOutputs(
    family,
    body,
    draw,
    {
      wrongSize:
        family.lane === "image" &&
        dice.roll("wrong-size", requestHash, options.faults.wrongSizeRate),
      shortClip:
        family.lane === "video" &&
        dice.roll("short-clip", requestHash, options.faults.shortClipRate),
    },
    occurrence,
    options.mediaVariants,
  );
}

/** A task's whole course, decided at its submit: timing, failure, outputs and faults. */
function ticketOf(
  context: SimContext,
  plan: {
    family: Family;
    requestHash: string;
    draw: number;
    fails: boolean;
    outputs: OutputPlan | undefined;
    price: number;
    now: number;
  },
): TaskTicket {
  const { options } = context;
  const { family, draw, fails, now } = plan;
  const latency = latencyOf(family, draw, options.latencySeconds);
  const startsAt = now + scaled(context, latency.queueSeconds);
  // A failing task gives up partway through.
  const runMs = scaled(context, latency.runSeconds) * (fails ? 0.5 : 1);
  return {
    family: family.id,
    createdAt: now,
    startsAt: Math.round(startsAt),
    endsAt: Math.round(startsAt + runMs),
    estimatedSeconds: Math.max(1, Math.round(latency.estimatedSeconds / options.timeScale)),
    failure: fails ? FAILURES[Math.floor(draw * FAILURES.length)] : undefined,
    price: plan.price,
    outputs: plan.outputs,
    nonce: randomBytes(6).toString("base64url"),
    ...ticketFaults(context, plan.requestHash, fails),
  };
}

/** The task faults rolled for a submit; a failing task's message may also be huge or hostile. */
function ticketFaults(
  context: SimContext,
  requestHash: string,
  fails: boolean,
): Pick<TaskTicket, "deadLinks" | "oddStatus" | "hugeError" | "escapeError" | "surplusLinks"> {
  const { options, dice } = context;
  return {
    ...(dice.roll("expired-link", requestHash, options.faults.expiredLinkRate)
      ? { deadLinks: true }
      : {}),
    ...(dice.roll("odd-status", requestHash, options.faults.oddStatusRate)
      ? { oddStatus: true }
      : {}),
    ...(fails && dice.roll("huge-error", requestHash, options.faults.hugeErrorRate)
      ? { hugeError: true }
      : {}),
    ...(fails && dice.roll("escape-error", requestHash, options.faults.escapeErrorRate)
      ? { escapeError: true }
      : {}),
    ...(dice.roll("surplus-links", requestHash, options.faults.surplusLinkRate)
      ? { surplusLinks: true }
      : {}),
  };
}

/**
 * Answers a created task's submit — unless a fault loses the answer, reports a failure, or
 * names another task's id. The task exists and will be billed either way.
 */
function answerCreated(
  context: SimContext,
  { req, res }: Pick<Exchange, "req" | "res">,
  family: Family,
  requestHash: string,
  taskId: string,
): void {
  const { options, counters, dice } = context;
  if (dice.roll("lost-response", requestHash, options.faults.lostResponseRate)) {
    // The task exists and will be billed; the client never hears of it.
    countError(counters, "lost_response");
    req.socket.destroy();
    return;
  }
  if (dice.roll("created-error", requestHash, options.faults.createdErrorRate)) {
    // The task exists and will be billed; the client is told it failed.
    countError(counters, 500);
    sendError(res, 500, "internal server error after the task was created (injected)");
    return;
  }
  // The task exists and will be billed; the client is told another's id.
  const duplicate =
    context.lastTaskId !== undefined &&
    dice.roll("duplicate-id", requestHash, options.faults.duplicateTaskIdRate);
  if (duplicate) countError(counters, "duplicate_id");
  const answered = duplicate ? (context.lastTaskId as string) : taskId;
  context.lastTaskId = answered;
  if (family.id === "image-b") {
    sendJson(res, 200, {
      code: "success",
      message: "",
      data: [{ status: "processing", task_id: answered }],
    });
  } else {
    sendJson(res, 200, { code: 200, data: [{ status: "submitted", task_id: answered }] });
  }
}

function violatesSafety(body: RequestBody, word: string): boolean {
  const prompt = stringAt(body, "prompt");
  return word !== "" && prompt !== undefined && prompt.toLowerCase().includes(word.toLowerCase());
}

/** Prompts kept for judges: enough for a run's recent pictures, never the whole run's. */
const PROMPTS_KEPT = 5_000;

function rememberPrompt(context: SimContext, seed: string, prompt: unknown): void {
  if (typeof prompt !== "string") return;
  const { prompts } = context;
  prompts.delete(seed);
  prompts.set(seed, prompt);
  if (prompts.size > PROMPTS_KEPT) prompts.delete(prompts.keys().next().value as string);
}
