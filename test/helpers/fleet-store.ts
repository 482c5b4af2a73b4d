import { openPgStore, type PgStore, type TaskRow } from "../../src/store/index.js";
import { testDatabase } from "./postgres.js";
import { imageTask } from "./store.js";

/** Stores of several fleet processes on one new database, for tests of the fleet's SQL. */

const opened: PgStore[] = [];

/** Closes the stores `fleet` opened (a test file's afterEach). */
export async function closeFleetStores(): Promise<void> {
  await Promise.all(opened.splice(0).map((store) => store.close()));
}

/** `count` processes' stores on one new database, and a run with `tasks` pending images. */
export async function fleet(
  count: number,
  tasks: number,
  estimate: number | null = null,
): Promise<{ stores: PgStore[]; runId: number; rows: TaskRow[]; url: string }> {
  const url = await testDatabase({ schema: true });
  const stores = await Promise.all(Array.from({ length: count }, () => openPgStore(url)));
  opened.push(...stores);
  const [first] = stores as [PgStore];
  const runId = await first.createRun({
    name: "fleet",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "http://gateway.test",
    output_dir: "/out",
    started_at: 1,
  });
  const list = Array.from({ length: tasks }, (_, i) => ({
    ...imageTask(`k${String(i).padStart(3, "0")}`),
    label: `t${i}`,
    estimatedCost: estimate,
  }));
  await first.recordTasks(runId, list, 1);
  return { stores, runId, rows: await first.tasksOf(runId), url };
}
