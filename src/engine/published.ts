import type { OutputRow, TaskRow } from "../store/index.js";

/**
 * Object storage as the engine sees it (`output.publish`; `publish/` implements it): a done
 * task's outputs are published before its dependants start, so a fleet's other hosts find
 * their bytes; and bytes this host lacks are read back from it.
 */
export interface OutputPublisher {
  /** Publishes what of a done task's outputs is not in every target yet; why not, or undefined. */
  publish(task: TaskRow, signal: AbortSignal): Promise<string | undefined>;
  /** Brings the published file of each output not on disk here to its recorded path. */
  bringHere(outputs: readonly OutputRow[]): Promise<void>;
}
