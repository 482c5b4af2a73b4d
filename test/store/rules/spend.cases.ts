/**
 * What a run's tasks count against `max_cost`, and whether one more task is let go: a paid
 * task counts its cost, else its estimate, else `unknown_cost`; a task in flight its estimate,
 * else `unknown_cost`; each submit of unknown outcome its estimate once more. One table for one
 * process's `Admission` and a fleet's `gwrun_run_spent` and claims.
 */

export type SpendState =
  | "pending"
  | "submitting"
  | "submitted"
  | "processing"
  | "completed"
  | "downloaded"
  | "done"
  | "failed";

export interface SpendTask {
  state: SpendState;
  estimate: number | null;
  /** The cost the gateway reported, for a paid task; null when it reported none. */
  cost?: number | null;
  /** Submits of unknown outcome so far. */
  unknownSubmits?: number;
}

export interface SpendCase {
  name: string;
  maxCost: number;
  unknownCost?: number;
  tasks: readonly SpendTask[];
  /** What the tasks count against the budget. */
  spent: number;
  /** The estimate of one more pending task, and whether the budget lets it go. */
  next: { estimate: number | null; goes: boolean };
}

export const SPEND_CASES: readonly SpendCase[] = [
  {
    name: "a paid task counts its cost, one in flight its estimate",
    maxCost: 1,
    tasks: [
      { state: "done", estimate: 0.2, cost: 0.15 },
      { state: "downloaded", estimate: 0.2, cost: 0.25 },
      { state: "submitted", estimate: 0.2 },
      { state: "processing", estimate: 0.1 },
    ],
    spent: 0.7,
    next: { estimate: 0.3, goes: true },
  },
  {
    name: "a task that would pass the budget does not go",
    maxCost: 1,
    tasks: [
      { state: "completed", estimate: 0.3, cost: 0.3 },
      { state: "submitting", estimate: 0.3 },
      { state: "submitted", estimate: 0.3 },
    ],
    spent: 0.9,
    next: { estimate: 0.2, goes: false },
  },
  {
    name: "prices that sum to the budget reach it exactly",
    maxCost: 0.6,
    tasks: [
      { state: "done", estimate: 0.2, cost: 0.2 },
      { state: "done", estimate: 0.2, cost: 0.2 },
    ],
    spent: 0.4,
    next: { estimate: 0.2, goes: true },
  },
  {
    name: "a paid task without a reported cost counts its estimate",
    maxCost: 1,
    tasks: [{ state: "done", estimate: 0.4, cost: null }],
    spent: 0.4,
    next: { estimate: 0.6, goes: true },
  },
  {
    name: "tasks without an estimate count unknown_cost",
    maxCost: 1,
    unknownCost: 0.25,
    tasks: [
      { state: "done", estimate: null, cost: null },
      { state: "submitted", estimate: null },
    ],
    spent: 0.5,
    next: { estimate: null, goes: true },
  },
  {
    name: "without unknown_cost a task of unknown price counts nothing until it is paid",
    maxCost: 0.5,
    tasks: [
      { state: "submitted", estimate: null },
      { state: "done", estimate: null, cost: 0.5 },
    ],
    spent: 0.5,
    next: { estimate: null, goes: false },
  },
  {
    name: "each submit of unknown outcome counts its task's estimate once more",
    maxCost: 1,
    tasks: [
      { state: "failed", estimate: 0.2, unknownSubmits: 2 },
      { state: "submitted", estimate: 0.2, unknownSubmits: 1 },
    ],
    spent: 0.8,
    next: { estimate: 0.3, goes: false },
  },
  {
    name: "pending and failed tasks count nothing",
    maxCost: 0.3,
    tasks: [
      { state: "pending", estimate: 0.3 },
      { state: "failed", estimate: 0.3 },
    ],
    spent: 0,
    next: { estimate: 0.3, goes: true },
  },
];
