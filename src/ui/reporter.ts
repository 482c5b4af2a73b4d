import type { Emit } from "../engine/index.js";

/** Shows a run: fed every engine event, never driving the run. */
export interface Reporter {
  emit: Emit;
  /** Something to tell the person outside the event stream (the Ctrl-C notice). */
  notice(message: string): void;
  /** Shows the final summary (after `run:finished`) and releases the terminal and timers. */
  close(): Promise<void>;
}
