import { commandIo } from "./io.js";

/**
 * The timeout policy: how long gwrun waits on each network peer before it gives up on a
 * request — the gateway, object storage, webhooks, a `rows:` URL — and how long the end of a run may wait on
 * storage in all. Every network call takes its bounds from here, so no peer that stops
 * answering can hold a run: a request gives up, a storage that went silent is not asked again
 * in that run, and what it missed is told for `gwrun publish`.
 *
 * Each bound may be set in the environment for a slow link: `GWRUN_TIMEOUT_GATEWAY`,
 * `GWRUN_TIMEOUT_STORAGE`, `GWRUN_TIMEOUT_STORAGE_END`, `GWRUN_TIMEOUT_WEBHOOK`,
 * `GWRUN_TIMEOUT_ROWS` (`30s`, `500ms`, `2m`, or milliseconds).
 */

/** How long to wait to connect, and for an answer (headers, then between body chunks). */
export interface PeerTimeouts {
  connectMs: number;
  answerMs: number;
}

export interface TimeoutPolicy {
  gateway: PeerTimeouts;
  storage: PeerTimeouts & {
    /** What the end of a run may spend publishing what it missed, in all. */
    runEndMs: number;
  };
  /** A webhook's delivery in all, retries included (a `notify:` entry may set its own). */
  webhook: PeerTimeouts;
  /** The server of a manifest's `rows:` URL (a published spreadsheet), fetched before a check. */
  rows: PeerTimeouts;
}

export const DEFAULT_TIMEOUTS: TimeoutPolicy = {
  gateway: { connectMs: 10_000, answerMs: 60_000 },
  storage: { connectMs: 10_000, answerMs: 30_000, runEndMs: 120_000 },
  webhook: { connectMs: 10_000, answerMs: 10_000 },
  rows: { connectMs: 10_000, answerMs: 30_000 },
};

type Env = Readonly<Record<string, string | undefined>>;

/** The policy, with what the environment sets (an unreadable value is left at its default). */
export function timeoutsOf(env: Env = commandIo().env): TimeoutPolicy {
  const read = (name: string, fallback: number) => durationMs(env[name]) ?? fallback;
  const { gateway, storage, webhook, rows } = DEFAULT_TIMEOUTS;
  return {
    gateway: { ...gateway, answerMs: read("GWRUN_TIMEOUT_GATEWAY", gateway.answerMs) },
    storage: {
      connectMs: Math.min(storage.connectMs, read("GWRUN_TIMEOUT_STORAGE", storage.answerMs)),
      answerMs: read("GWRUN_TIMEOUT_STORAGE", storage.answerMs),
      runEndMs: read("GWRUN_TIMEOUT_STORAGE_END", storage.runEndMs),
    },
    webhook: { ...webhook, answerMs: read("GWRUN_TIMEOUT_WEBHOOK", webhook.answerMs) },
    rows: { ...rows, answerMs: read("GWRUN_TIMEOUT_ROWS", rows.answerMs) },
  };
}

/** `30s`, `500ms`, `2m`, `1h` or a number of milliseconds; undefined when it reads as none. */
function durationMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (match === null) return undefined;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? "ms"] as number;
  const ms = Number(match[1]) * unit;
  return ms > 0 ? Math.round(ms) : undefined;
}
