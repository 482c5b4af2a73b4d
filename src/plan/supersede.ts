import { type Store, type TaskRow, TaskState } from "../store/index.js";
import { TaskStatus } from "./status.js";

/**
 * What a run would supersede: outputs in the folder that a new task's label takes over — a
 * request changed under the same label (an edited prompt). The old files stay on disk and in
 * the record; the new ones get names of their own (`-v2`), and the folder's record shows the
 * new take once it is done. The old task's `from:` dependants are superseded with it, by the
 * dependants the new one will have under their labels.
 */

/**
 * Outputs superseded per manifest job id (jobs without any left out), counted as a plan's
 * tasks come, a page at a time: each old task is counted once.
 */
export class Supersession {
  readonly superseded = new Map<string, number>();
  readonly #current = new Map<string, Map<string, TaskRow>>();
  readonly #counted = new Set<string>();

  constructor(
    private readonly store: Pick<Store, "currentTasksOf" | "outputsOf" | "dependantsOf">,
    private readonly outputDir: string,
  ) {}

  async add(
    tasks: readonly { jobId: string; key: string; label: string; status: TaskStatus }[],
  ): Promise<void> {
    for (const task of tasks) {
      if (task.status !== TaskStatus.New) continue;
      const old = (await this.#currentOf(task.jobId)).get(task.label);
      if (old !== undefined && old.key !== task.key) await this.#supersede(old);
    }
  }

  async #currentOf(jobId: string): Promise<Map<string, TaskRow>> {
    let current = this.#current.get(jobId);
    if (current === undefined) {
      const rows = await this.store.currentTasksOf(this.outputDir, jobId);
      current = new Map(rows.map((row) => [row.label, row]));
      this.#current.set(jobId, current);
    }
    return current;
  }

  async #supersede(old: TaskRow): Promise<void> {
    if (this.#counted.has(old.key) || old.state !== TaskState.Done) return;
    this.#counted.add(old.key);
    const files = (await this.store.outputsOf(old.key)).filter((o) => o.state === "downloaded");
    if (files.length > 0)
      this.superseded.set(old.job_id, (this.superseded.get(old.job_id) ?? 0) + files.length);
    for (const dependant of await this.store.dependantsOf(old.key))
      await this.#supersede(dependant);
  }
}
