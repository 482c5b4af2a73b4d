import { ExitCode, type StoreFlags, storeAt, withExistingStore } from "../api/index.js";
import { plural } from "../core/words.js";
import { out } from "./output.js";

/**
 * `gwrun prune`: the event log's lines for the moves of finished tasks in finished runs go,
 * and their space is given back; status, reports, the viewer and the sidecars read none of them.
 */
export function pruneRecord(flags: StoreFlags): Promise<ExitCode> {
  return withExistingStore(storeAt(flags), async (store) => {
    const removed = await store.pruneTaskEvents();
    const reclaimed = await store.reclaimSpace();
    out(
      `pruned ${plural(removed, "logged task move")} of finished runs${reclaimed ? "" : " (another process holds the database: its space is reused, the file shrinks at the next gwrun prune)"}`,
    );
    return ExitCode.Ok;
  });
}
