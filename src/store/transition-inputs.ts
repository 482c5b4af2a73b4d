import type { TaskRow } from "./rows.js";

/** What the store's transitions are given (and give back), beside the rows it keeps. */

/** The gateway's answer to a submit, to record. */
export interface Receipt {
  task: TaskRow;
  taskId: string;
  status: "submitted" | "processing";
  nextPollAt: number;
  /** Tries of this submit whose outcome is unknown (they may have created tasks). */
  unknownSubmits: number;
}

/** What one poll answer means for one task (see the engine's `pollOutcome`). */
export type PollOutcome =
  | { kind: "running"; status: "submitted" | "processing"; progress: number; nextPollAt: number }
  | {
      kind: "completed";
      links: OutputLink[];
      cost: number | null;
      /** Links listed beyond what the request was promised: left out. */
      surplus?: number;
    }
  | { kind: "failed"; to: "failed" | "expired"; reason: string };

export interface OutputLink {
  url: string | null;
  expiresAt: number | null;
}

export interface DownloadedFile {
  task: TaskRow;
  idx: number;
  path: string;
  bytes: number;
  sha256: string;
  contentType: string;
  /** When it landed (ms); default: when it is recorded. */
  downloadedAt?: number;
}

/** What post-processing found for one output, to keep with it. */
export interface OutputCheck {
  index: number;
  ok: boolean;
  problems: string[];
  thumbnail: string | null;
  poster: string | null;
  /** What was measured (format, pixels, duration, streams). */
  details: Record<string, unknown>;
}

export interface RecordedDependant {
  task: TaskRow;
  /** First recorded now (not taken on from an earlier run). */
  fresh: boolean;
  /** Why it cannot be sent; null when it can. */
  problem: string | null;
}
