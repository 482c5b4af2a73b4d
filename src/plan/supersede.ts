import { type Store, type TaskRow, TaskState } from "../store/index.js";
import { TaskStatus } from "./status.js";

/**
 * What a run would supersede: outputs in the folder that a new task's label takes over — a
 * request changed under the same label (an edited prompt). The old files stay on disk and in
 * the record; the new ones get names of their own (`-v2`), and the folder's record shows the
 * new take once it is done. The old task's `from:` dependants are superseded with it, by the
 * dependants the new one will have under their labels.
 */

/** Outputs superseded per manifest job id (jobs without any left out). */
export async function supersededOutputs(
  tasks: readonly { jobId: string; key: string; label: string; status: TaskStatus }[],
  store: Pick<Store, "currentTasksOf" | "outputsOf" | "dependantsOf">,
  outputDir: string,
): Promise<Map<string, number>> {
  const fresh = tasks.filter((task) => task.status === TaskStatus.New);
  const current = new Map<string, Map<string, TaskRow>>();
  for (const jobId of new Set(fresh.map((task) => task.jobId))) {
    const rows = await store.currentTasksOf(outputDir, jobId);
    current.set(jobId, new Map(rows.map((row) => [row.label, row])));
  }
  const superseded = new Map<string, number>();
  const counted = new Set<string>();
  const supersede = async (old: TaskRow): Promise<void> => {
    if (counted.has(old.key) || old.state !== TaskState.Done) return;
    counted.add(old.key);
    const files = (await store.outputsOf(old.key)).filter((o) => o.state === "downloaded");
    if (files.length > 0)
      superseded.set(old.job_id, (superseded.get(old.job_id) ?? 0) + files.length);
    for (const dependant of await store.dependantsOf(old.key)) await supersede(dependant);
  };
  for (const task of fresh) {
    const old = current.get(task.jobId)?.get(task.label);
    if (old !== undefined && old.key !== task.key) await supersede(old);
  }
  return superseded;
}
