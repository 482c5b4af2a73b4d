import { ErrorCode, GwError } from "../core/errors.js";

/**
 * The state database failing under a run (a full disk, a file gone read-only): nothing more
 * can be recorded, so nothing more may be sent. The run stops and ends with the store's own
 * error; gateway answers that arrived and could not be recorded (task ids of paid tasks) are
 * named in it, so they are not lost in silence.
 */

/** Whether `error` is the store saying it cannot be used (`GW_STORE_UNUSABLE`). */
export function isStoreUnusable(error: unknown): error is GwError {
  return error instanceof GwError && error.code === ErrorCode.StoreUnusable;
}

export class StoreFault {
  #error: GwError | undefined;
  readonly #unrecorded: string[] = [];
  readonly #stop: (message: string) => void;

  /** `stop`: stops the run, told why, at the first store failure. */
  constructor(stop: (message: string) => void) {
    this.#stop = stop;
  }

  /** The first store failure seen, if any. */
  get error(): GwError | undefined {
    return this.#error;
  }

  /**
   * Keeps `error` when it is a store failure (the first one wins, and stops the run); true when
   * it is one.
   */
  caught(error: unknown): boolean {
    if (!isStoreUnusable(error)) return false;
    if (this.#error === undefined) {
      this.#error = error;
      this.#stop(`stopping: ${error.message}; nothing more is sent`);
    }
    return true;
  }

  /** A gateway answer that could not be recorded: `what` says what it was, for the person. */
  unrecorded(what: string): void {
    this.#unrecorded.push(what);
  }

  /** What the run ends with: the store's error, naming the answers it could not record. */
  ending(): GwError | undefined {
    const error = this.#error;
    if (error === undefined || this.#unrecorded.length === 0) return error;
    const lost = `; answers it could not record (note them before running again): ${this.#unrecorded.join("; ")}`;
    return new GwError(ErrorCode.StoreUnusable, `${error.message}${lost}`, {
      hint: error.hint,
      cause: error,
    });
  }
}
