import { slackText } from "../core/text-filter.js";
import { postWebhook } from "../gateway/index.js";
import type { NotifyTarget } from "../manifest/index.js";
import type { FailureRow, Store } from "../store/index.js";
import type { RunResult } from "./context.js";
import type { RunEnd } from "./events.js";
import { nextStep, shellWord } from "./next-step.js";
import { budgetWarnings } from "./period-budgets.js";
import { EXIT_BY_END, STATUS_BY_END } from "./run-end.js";

/**
 * Notifications: when a run ends, each `notify:` webhook whose `on:` holds the outcome gets a
 * JSON summary of it. Both drivers call this once a run's ending is recorded: the engine's
 * process, and the fleet process that settles the run.
 */

/** The outcome a webhook chooses by: a budget or the gateway balance is `budget`, Ctrl-C `stopped`. */
export const OUTCOME_BY_END: Readonly<Record<RunEnd, "done" | "failed" | "stopped" | "budget">> = {
  done: "done",
  failed: "failed",
  budget: "budget",
  balance: "budget",
  interrupted: "stopped",
};

/** Failures the summary names, with their reasons; the rest are in its counts. */
const FAILURES_SHOWN = 5;

export interface RunEndNote {
  run: { id: number; name: string; tick: number | null };
  outcome: string;
  /** The run's status as `gwrun runs` shows it. */
  status: string;
  exit_code: number;
  counts: Record<string, number>;
  spend: { paid: number; spent: number };
  duration_ms: number;
  failures: { label: string; job: string; state: string; reason: string }[];
  next: string | null;
  /** The command that serves the review app, and the run's page in it. */
  view: { command: string; page: string };
  /** Budgets across runs past their soft limit (`gwrun budget set --warn-at`), one line each. */
  budget_warnings: string[];
  /** One or two lines for a chat channel (Slack reads this field). */
  text: string;
}

/** Where a run's notifications go, and how their trouble is told. */
export interface NotifyOptions {
  /** Told a delivery that failed (the webhook named by its host only); never throws. */
  tell: (message: string) => void;
  /** The store as the next command must name it; undefined when it need not. */
  db?: string;
  /** The environment whose proxies requests go through. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Posts the run's summary to the webhooks that want its outcome, all at once, each within its
 * time limit. Never throws and never changes the run's exit code: trouble is told.
 */
export async function notifyRunEnd(
  store: Store,
  runId: number,
  result: RunResult,
  webhooks: readonly NotifyTarget[],
  options: NotifyOptions,
): Promise<void> {
  const outcome = OUTCOME_BY_END[result.end];
  const targets = webhooks.filter((target) => target.on.includes(outcome));
  if (targets.length === 0) return;
  let note: RunEndNote;
  try {
    note = await runEndNote(store, runId, result, options.db);
  } catch (error) {
    options.tell(`notify: the run's summary could not be read: ${(error as Error).message}`);
    return;
  }
  const deliveries = await Promise.all(
    targets.map((target) => postWebhook(target.webhook, note, target.timeoutMs, options.env)),
  );
  for (const delivery of deliveries)
    if (!delivery.delivered) options.tell(`notify: not delivered to ${delivery.why}`);
}

/** The summary a webhook gets, read from the store once the run's ending is recorded. */
export async function runEndNote(
  store: Store,
  runId: number,
  result: RunResult,
  db?: string,
): Promise<RunEndNote> {
  const run = await store.run(runId);
  const failures: FailureRow[] = [];
  for await (const failure of store.failuresOf({ run: runId })) {
    failures.push(failure);
    if (failures.length === FAILURES_SHOWN) break;
  }
  const counts = Object.fromEntries(
    Object.entries(result.counts).filter(([, n]) => (n ?? 0) > 0),
  ) as Record<string, number>;
  const next = nextStep({
    runId,
    end: result.end,
    counts: result.counts,
    failedLabels: failures.map((failure) => failure.label),
    db,
    reason: run?.stop_reason ?? undefined,
  });
  const name = run?.name ?? `run ${runId}`;
  const status = STATUS_BY_END[result.end];
  const duration = Math.max(0, (run?.finished_at ?? Date.now()) - (run?.started_at ?? Date.now()));
  const note: Omit<RunEndNote, "text"> = {
    run: { id: runId, name, tick: run?.tick ?? null },
    outcome: OUTCOME_BY_END[result.end],
    status,
    exit_code: EXIT_BY_END[result.end],
    counts,
    spend: { paid: result.paid, spent: result.spent },
    duration_ms: duration,
    failures: failures.map((failure) => ({
      label: failure.label,
      job: failure.job_id,
      state: failure.state,
      reason: failure.reason ?? failure.state,
    })),
    next: next ?? null,
    budget_warnings: run === undefined ? [] : await budgetWarnings(store, run.base_url, Date.now()),
    view: {
      command: db === undefined ? "gwrun view" : `gwrun view ${dbFlag(db)}`,
      page: `/runs/${runId}`,
    },
  };
  return { ...note, text: chatText(note) };
}

function dbFlag(db: string): string {
  return `${/^postgres(ql)?:\/\//i.test(db) ? "--store" : "--db"} ${shellWord(db)}`;
}

/**
 * "gwrun: run 7 spring-campaign failed after 3m 05s: 40 tasks, 38 done, 2 failed; paid 3.4",
 * as Slack reads it: escaped, so a reason a gateway wrote cannot mention or link anyone.
 */
function chatText(note: Omit<RunEndNote, "text">): string {
  const tasks = Object.values(note.counts).reduce((sum, n) => sum + n, 0);
  const others = Object.entries(note.counts)
    .filter(([state]) => state !== "done")
    .map(([state, n]) => `${n} ${state}`);
  const first = `gwrun: run ${note.run.id} ${note.run.name} ${note.status} after ${seconds(note.duration_ms)}: ${tasks} tasks, ${note.counts.done ?? 0} done${others.length > 0 ? `, ${others.join(", ")}` : ""}; paid ${note.spend.paid}`;
  const failure = note.failures[0];
  const second = [
    failure === undefined ? "" : `first failure: ${failure.label}: ${failure.reason}`,
    note.next === null ? "" : `next: ${note.next}`,
    ...note.budget_warnings,
  ].filter((part) => part !== "");
  return slackText(second.length === 0 ? first : `${first}\n${second.join("; ")}`);
}

function seconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}
