import type { CheckedJob, CheckedManifest } from "../families/index.js";
import { selectJobs } from "./only.js";

/**
 * A manifest as checked, held while its run is recorded and its engine (or fleet driver) is
 * built, then let go: every task's expansion is a few hundred bytes, and a run of 300,000
 * tasks reads what it needs from the store as it works. No variable of the long-running
 * `executeChecked` holds the manifest itself, so `release()` frees it.
 */
export class HeldManifest {
  #checked: CheckedManifest | undefined;
  #jobs: readonly CheckedJob[] | undefined;

  /** `only`: the `--only` selection of job ids, comma-separated. */
  constructor(checked: CheckedManifest, only: string | undefined) {
    this.#checked = checked;
    this.#jobs = selectJobs(checked.jobs, only);
  }

  get checked(): CheckedManifest {
    return this.#held(this.#checked);
  }

  /** The jobs the run works: the `--only` selection, or every job. */
  get jobs(): readonly CheckedJob[] {
    return this.#held(this.#jobs);
  }

  release(): void {
    this.#checked = undefined;
    this.#jobs = undefined;
  }

  #held<T>(value: T | undefined): T {
    if (value === undefined) throw new Error("the checked manifest was let go when its run began");
    return value;
  }
}
