import type { SimCounters } from "./counters.js";
import type { FaultDice } from "./faults.js";
import type { Ledger } from "./ledger.js";
import type { MediaRenderer } from "./media.js";
import type { SimOptions } from "./options.js";
import type { TokenBucket } from "./token-bucket.js";

/** The state one simulator's handlers share. */
export interface SimContext {
  options: SimOptions;
  counters: SimCounters;
  dice: FaultDice;
  ledger: Ledger;
  /** The rate limit of generation calls, when one is set. */
  bucket: TokenBucket | undefined;
  media: MediaRenderer;
  /** The task id the last media submit was answered with (the duplicate-id fault repeats it). */
  lastTaskId: string | undefined;
  /** Queries answered so far without its result, per completed task (the unpublished-result fault). */
  unpublished: Map<string, number>;
  /** The prompts pictures were drawn from, by content seed (the latest few thousand): judges read them. */
  prompts: Map<string, string>;
}

/** A nominal (gateway) duration in real milliseconds under the time scale. */
export function scaled(context: SimContext, nominalSeconds: number): number {
  return (nominalSeconds * 1000) / context.options.timeScale;
}
