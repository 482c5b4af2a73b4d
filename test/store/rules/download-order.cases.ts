/**
 * Which download goes first: the nearest link expiry, in whole minutes, expired links first,
 * links a day or more away and tasks without a link last, ties in the order queued. One table
 * for one process's queue (`deadlineFirst`) and a fleet's (`gwrun_download_priority`).
 */

const MINUTE = 60_000;

export interface DownloadOrderCase {
  name: string;
  /** Each task's links: ms from now until each expires; null for a link without an expiry. */
  tasks: Record<string, readonly (number | null)[]>;
  /** The keys in the order their downloads start. */
  order: readonly string[];
}

export const DOWNLOAD_ORDER_CASES: readonly DownloadOrderCase[] = [
  {
    name: "the nearest expiry goes first",
    tasks: { a: [30.5 * MINUTE], b: [5.5 * MINUTE], c: [120.5 * MINUTE] },
    order: ["b", "a", "c"],
  },
  {
    name: "a task goes by the nearest of its links",
    tasks: { a: [10.5 * MINUTE, 90.5 * MINUTE], b: [600.5 * MINUTE, 2.5 * MINUTE] },
    order: ["b", "a"],
  },
  {
    name: "links within one minute are alike, and keep the order queued",
    tasks: { a: [7.9 * MINUTE], b: [7.1 * MINUTE], c: [6.5 * MINUTE] },
    order: ["c", "a", "b"],
  },
  {
    name: "expired links go first, all alike",
    tasks: { a: [3.5 * MINUTE], b: [-10 * MINUTE], c: [-600 * MINUTE] },
    order: ["b", "c", "a"],
  },
  {
    name: "a link a day or more away waits as long as a task without one",
    tasks: {
      a: [null],
      b: [2 * 1440 * MINUTE],
      c: [1000.5 * MINUTE],
      d: [50_000 * 365 * 1440 * MINUTE],
    },
    order: ["c", "a", "b", "d"],
  },
];
