import type { RunEnd } from "./events.js";

/**
 * How a run ended, in the words its record keeps (`runs.status`) and as the process that ran
 * it exits: one vocabulary for every driver (the engine, a fleet's settling worker) and every
 * reader (the command line, reporters).
 */
export const STATUS_BY_END: Readonly<Record<RunEnd, string>> = {
  done: "done",
  failed: "failed",
  budget: "stopped",
  balance: "stopped",
  interrupted: "interrupted",
};

/**
 * Whether a task already admitted (within the budget when it was taken, or claimed so in a
 * fleet) is still sent once the run has begun to stop so. A budget stop counted it, so it
 * goes, and the run pays what `plan` said it would whichever task met the budget first. The
 * gateway's balance, a failure or an interruption stops it: it goes back to pending, unpaid.
 */
export function sendsAdmitted(stopping: RunEnd | undefined): boolean {
  return stopping === undefined || stopping === "budget";
}

/** The exit code of a run that ended so (the command line's table has them all). */
export const EXIT_BY_END = {
  done: 0,
  failed: 1,
  budget: 3,
  balance: 3,
  interrupted: 130,
} as const satisfies Readonly<Record<RunEnd, number>>;
