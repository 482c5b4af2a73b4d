import type { OutputPlan } from "./outputs.js";
import { readToken, writeToken } from "./tokens.js";

/**
 * A task as the simulator knows it. Everything is fixed at submit — when it starts and ends,
 * whether it fails, what it delivers — and written into the task id itself, so a record is
 * computed from the id and the clock at query time and no task needs memory to be answered.
 *
 * States (the spec's): submitted → processing → completed | failed. Family B starts at
 * processing. `progress` rises linearly while processing.
 */
export interface TaskTicket {
  family: string;
  /** Real milliseconds since the epoch. */
  createdAt: number;
  startsAt: number;
  endsAt: number;
  /** Announced `estimated_time`, in reported (scaled) seconds. */
  estimatedSeconds: number;
  /** Failure message, when the task is going to fail. */
  failure: string | undefined;
  price: number;
  outputs: OutputPlan | undefined;
  /** Keeps equal submits apart: their ids and links differ. */
  nonce: string;
  /** A fault: the result links are dead on arrival. */
  deadLinks?: boolean;
}

const PREFIX = "task_";

/** A task id that carries its ticket. */
export function taskIdOf(ticket: TaskTicket): string {
  return `${PREFIX}${writeToken(ticket)}`;
}

/** The ticket behind a task id this simulator (or an earlier one) issued. */
export function ticketOf(taskId: string): TaskTicket | undefined {
  if (!taskId.startsWith(PREFIX)) return undefined;
  const value = readToken(taskId.slice(PREFIX.length));
  if (value === undefined || typeof value.family !== "string") return undefined;
  return value as unknown as TaskTicket;
}

export type TaskStatus = "submitted" | "processing" | "completed" | "failed";

/** The state of a task at `now`. */
export function statusAt(ticket: TaskTicket, now: number): TaskStatus {
  if (now >= ticket.endsAt) return ticket.failure === undefined ? "completed" : "failed";
  return now >= ticket.startsAt ? "processing" : "submitted";
}

export type VideoResultShape = "videos" | "url-field";

/**
 * The spec's Task record at `now`. `links` gives the download link of output `index`;
 * `linkTtlMs` is how long links work after completion.
 */
export function taskRecord(
  taskId: string,
  ticket: TaskTicket,
  now: number,
  links: (index: number, expiresAt: number) => string,
  linkTtlMs: number,
  videoResult: VideoResultShape,
): Record<string, unknown> {
  const status = statusAt(ticket, now);
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const record: Record<string, unknown> = {
    id: taskId,
    status,
    progress: progressAt(ticket, now),
    created: seconds(ticket.createdAt),
    estimated_time: ticket.estimatedSeconds,
    cost: status === "completed" ? ticket.price : 0,
  };
  if (status === "completed" || status === "failed") {
    record.completed = seconds(ticket.endsAt);
    record.actual_time = Math.max(1, Math.round((ticket.endsAt - ticket.createdAt) / 1000));
  }
  if (status === "failed") record.error = { message: ticket.failure };
  if (status === "completed" && ticket.outputs !== undefined) {
    // expires_at is completed + TTL, in the same whole seconds as `completed`.
    const expiresAt = seconds(ticket.endsAt) * 1000 + (ticket.deadLinks === true ? 0 : linkTtlMs);
    const urls = Array.from({ length: ticket.outputs.count }, (_, index) =>
      links(index, expiresAt),
    );
    const expires_at = seconds(expiresAt);
    if (ticket.outputs.kind === "image") {
      record.result = { images: urls.map((url) => ({ url: [url], expires_at })) };
    } else if (videoResult === "videos") {
      record.result = { videos: urls.map((url) => ({ url: [url], expires_at })) };
    } else {
      record.result = { video_url: urls[0], expires_at };
    }
  }
  return record;
}

function progressAt(ticket: TaskTicket, now: number): number {
  if (now >= ticket.endsAt)
    return ticket.failure === undefined ? 100 : progressBefore(ticket, ticket.endsAt);
  return progressBefore(ticket, now);
}

function progressBefore(ticket: TaskTicket, now: number): number {
  if (now < ticket.startsAt) return 0;
  const span = Math.max(1, ticket.endsAt - ticket.startsAt);
  return Math.min(99, Math.floor(((now - ticket.startsAt) / span) * 100));
}
