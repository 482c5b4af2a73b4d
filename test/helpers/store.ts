import path from "node:path";
import { type NewTask, openStore, type SqliteStore } from "../../src/store/index.js";
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
