/** The rows of scheduled manifests: their ticks and the leases that keep two runs of one apart. */

export const TickStatus = {
  Running: "running",
  Finished: "finished",
  Interrupted: "interrupted",
  Skipped: "skipped",
  Missed: "missed",
} as const;
export type TickStatus = (typeof TickStatus)[keyof typeof TickStatus];

export const TickTrigger = {
  OnTime: "on-time",
  CatchUp: "catch-up",
  Resumed: "resumed",
  /** A one-shot `gwrun run` (a system crontab, or by hand). */
  Run: "run",
} as const;
export type TickTrigger = (typeof TickTrigger)[keyof typeof TickTrigger];

/**
 * One tick of a scheduled manifest. Status: running → finished | interrupted (resumed later);
 * or skipped (the manifest was running); or missed (downtime, and catch-up left it out).
 */
export interface TickRow {
  id: number;
  name: string;
  tick: number;
  status: TickStatus;
  trigger: TickTrigger;
  run_id: number | null;
  exit_code: number | null;
  reason: string | null;
  fired_at: number;
  finished_at: number | null;
}

export interface LeaseRow {
  name: string;
  holder: string;
  host: string;
  pid: number;
  acquired_at: number;
  expires_at: number;
}

export interface LeaseHolder {
  /** Unique per process and lease: host:pid:random. */
  id: string;
  host: string;
  pid: number;
}
