import type { Clock } from "../core/clock.js";
import type { Random } from "../core/random.js";
import type { GatewayClient, RetryPolicy } from "../gateway/index.js";
import type { ManifestSettings } from "../manifest/index.js";
import type { Store, TaskEvent } from "../store/index.js";
import type { Emit } from "./events.js";
import type { SubmitPace } from "./pace.js";

/** What every part of a run works with, built once by the engine. */
export interface RunContext {
  store: Store;
  client: GatewayClient;
  clock: Clock;
  random: Random;
  emit: Emit;
  /** Aborted when the run is interrupted; every wait listens to it. */
  signal: AbortSignal;
  settings: ManifestSettings;
  runId: number;
  /** The run's output folder (absolute). */
  outputDir: string;
  retry: RetryPolicy;
  pace: SubmitPace;
  maxDownloadBytes: number;
}

/** Publishes what a store transition reported, once it has committed. */
export function publish(context: Pick<RunContext, "emit">, events: readonly TaskEvent[]): void {
  for (const event of events) context.emit(event);
}
