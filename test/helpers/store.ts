import path from "node:path";
import {
  type NewTask,
  openStore,
  type SqliteStore,
  type Store,
  type TaskEvent,
  type TaskRow,
} from "../../src/store/index.js";
import { tempDir } from "./manifest.js";

/** A fresh state database in a temp folder with one run recorded in it. */
export async function openTestStore(): Promise<{ store: SqliteStore; runId: number }> {
  const store = openStore(path.join(tempDir(), "state.db"));
  const runId = await store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: "/out",
    started_at: 1,
  });
  return { store, runId };
}

/** An image task as a run first records it, under `key`. */
export function imageTask(key: string): NewTask {
  return {
    key,
    jobId: "a",
    label: "a",
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: "{}",
    upstreamKey: null,
    estimatedCost: null,
  };
}

/** Claims one task for submitting, as the engine does; undefined when it is not pending. */
export async function claimOne(
  store: Store,
  task: TaskRow,
  owner: string,
  now: number,
): Promise<{ task: TaskRow; events: TaskEvent[] } | undefined> {
  const { claimed, events } = await store.claimForSubmit([task], owner, now);
  const [first] = claimed;
  return first === undefined ? undefined : { task: first, events };
}
