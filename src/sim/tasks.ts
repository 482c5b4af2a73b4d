import type { OutputPlan } from "./outputs.js";
import { Packer, readToken, Unpacker, writeToken } from "./tokens.js";

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
  /** A fault: the task reports a status the spec does not name, and never finishes. */
  oddStatus?: boolean;
  /** A fault: a failing task's message runs to megabytes. */
  hugeError?: boolean;
  /** A fault: a failing task's message carries markup and terminal escape sequences. */
  escapeError?: boolean;
  /** A fault: a completed task lists far more links than it made. */
  surplusLinks?: boolean;
}

const PREFIX = "task_";

/** Family ids by their index in a token (append only: tokens outlive versions). */
const FAMILY_IDS = [
  "image-a",
  "image-b",
  "image-c",
  "image-d",
  "image-e",
  "image-edits",
  "video-1",
  "video-2",
  "video-3",
  "video-4",
  "video-5",
  "video-6",
  "video-7",
  "video-8",
  "video-9",
  "video-10",
];

const FLAG_OUTPUTS = 1;
const FLAG_VIDEO = 2;
const FLAG_AUDIO = 4;
const FLAG_DEAD_LINKS = 8;
const FLAG_ODD_STATUS = 16;
const FLAG_HUGE_ERROR = 32;
const FLAG_ESCAPE_ERROR = 64;
const FLAG_SURPLUS_LINKS = 128;

/** How many links a task with the surplus-links fault lists. */
export const SURPLUS_LINKS = 500;

/** What a task with the escape-error fault adds to its message: a title change, colours, a script. */
export const ESCAPE_ERROR_TAIL =
  "\u001b]0;gwrun owned\u0007 \u001b[31mdetails\u001b[0m <script>alert(1)</script>";

/** How long the message of a task with the huge-error fault is. */
export const HUGE_ERROR_BYTES = 4 * 1024 * 1024;

/** What a task with the odd-status fault reports, for ever. */
export const ODD_STATUS = "queued_upstream";

/** A task id that carries its ticket (about 90 characters). */
export function taskIdOf(ticket: TaskTicket): string {
  const outputs = ticket.outputs;
  const flags =
    (outputs === undefined ? 0 : FLAG_OUTPUTS) |
    (outputs?.kind === "video" ? FLAG_VIDEO : 0) |
    (outputs?.audio === true ? FLAG_AUDIO : 0) |
    (ticket.deadLinks === true ? FLAG_DEAD_LINKS : 0) |
    (ticket.oddStatus === true ? FLAG_ODD_STATUS : 0) |
    (ticket.hugeError === true ? FLAG_HUGE_ERROR : 0) |
    (ticket.escapeError === true ? FLAG_ESCAPE_ERROR : 0) |
    (ticket.surplusLinks === true ? FLAG_SURPLUS_LINKS : 0);
  const packer = new Packer()
    .uint(FAMILY_IDS.indexOf(ticket.family) + 1, 1)
    .uint(ticket.createdAt, 6)
    .uint(ticket.startsAt - ticket.createdAt, 4)
    .uint(ticket.endsAt - ticket.startsAt, 4)
    .uint(ticket.estimatedSeconds, 4)
    .uint(ticket.price * 10_000, 4)
    .text(ticket.failure ?? "")
    .uint(flags, 1)
    .text(ticket.nonce);
  if (outputs !== undefined) {
    packer
      .uint(outputs.count, 1)
      .uint(outputs.width, 2)
      .uint(outputs.height, 2)
      .uint((outputs.duration ?? 0) * 100, 4)
      .text(outputs.seed);
  }
  return `${PREFIX}${writeToken(packer.bytes())}`;
}

/** The ticket behind a task id this simulator (or an earlier one) issued. */
export function ticketOf(taskId: string): TaskTicket | undefined {
  if (!taskId.startsWith(PREFIX)) return undefined;
  const bytes = readToken(taskId.slice(PREFIX.length));
  if (bytes === undefined) return undefined;
  try {
    const reader = new Unpacker(bytes);
    const family = FAMILY_IDS[reader.uint(1) - 1];
    if (family === undefined) return undefined;
    const createdAt = reader.uint(6);
    const startsAt = createdAt + reader.uint(4);
    const endsAt = startsAt + reader.uint(4);
    const estimatedSeconds = reader.uint(4);
    const price = reader.uint(4) / 10_000;
    const failure = reader.text();
    const flags = reader.uint(1);
    const nonce = reader.text();
    const outputs: OutputPlan | undefined =
      (flags & FLAG_OUTPUTS) === 0
        ? undefined
        : {
            kind: (flags & FLAG_VIDEO) === 0 ? "image" : "video",
            count: reader.uint(1),
            width: reader.uint(2),
            height: reader.uint(2),
            duration: reader.uint(4) / 100,
            audio: (flags & FLAG_AUDIO) !== 0,
            seed: reader.text(),
          };
    return {
      family,
      createdAt,
      startsAt,
      endsAt,
      estimatedSeconds,
      failure: failure === "" ? undefined : failure,
      price,
      outputs,
      nonce,
      ...((flags & FLAG_DEAD_LINKS) === 0 ? {} : { deadLinks: true }),
      ...((flags & FLAG_ODD_STATUS) === 0 ? {} : { oddStatus: true }),
      ...((flags & FLAG_HUGE_ERROR) === 0 ? {} : { hugeError: true }),
      ...((flags & FLAG_ESCAPE_ERROR) === 0 ? {} : { escapeError: true }),
      ...((flags & FLAG_SURPLUS_LINKS) === 0 ? {} : { surplusLinks: true }),
    };
  } catch {
    return undefined;
  }
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
    status: ticket.oddStatus === true ? ODD_STATUS : status,
    progress: progressAt(ticket, now),
    created: seconds(ticket.createdAt),
    estimated_time: ticket.estimatedSeconds,
    cost: status === "completed" ? ticket.price : 0,
  };
  if (ticket.oddStatus === true) return record;
  if (status === "completed" || status === "failed") {
    record.completed = seconds(ticket.endsAt);
    record.actual_time = Math.max(1, Math.round((ticket.endsAt - ticket.createdAt) / 1000));
  }
  if (status === "failed") record.error = { message: failureMessage(ticket) };
  if (status === "completed" && ticket.outputs !== undefined) {
    // expires_at is completed + TTL, in the same whole seconds as `completed`.
    const expiresAt = seconds(ticket.endsAt) * 1000 + (ticket.deadLinks === true ? 0 : linkTtlMs);
    const { count } = ticket.outputs;
    const listed = ticket.surplusLinks === true ? SURPLUS_LINKS : count;
    const urls = Array.from({ length: listed }, (_, index) => links(index % count, expiresAt));
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

function failureMessage(ticket: TaskTicket): string | undefined {
  if (ticket.failure === undefined) return undefined;
  let message = ticket.failure;
  if (ticket.escapeError === true) message += ` ${ESCAPE_ERROR_TAIL}`;
  if (ticket.hugeError === true) message += `: ${"trace ".repeat(HUGE_ERROR_BYTES / 6)}`;
  return message;
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
