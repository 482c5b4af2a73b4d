import { type FSWatcher, watch } from "node:fs";
import type { WatchedFolder } from "./scan.js";

/**
 * Wakes `gwrun watch` when something changes in the folders it watches, with Node's own
 * `fs.watch` (recursive where a glob reaches into subfolders: Linux since Node 20, macOS
 * always). An event only says "look again": the watch then lists the globs afresh, and lists
 * them on a slow timer too, so an event missed or coalesced never loses a file. A folder
 * missing now, or whose watcher failed, is watched again at the next `ensure()`.
 */
export class FolderEvents {
  readonly #folders: readonly WatchedFolder[];
  readonly #watchers = new Map<string, FSWatcher>();
  /** Events so far: a waiter asks for one after the count it saw, so none falls between. */
  #count = 0;
  #waiters = new Set<{ after: number; resolve: () => void }>();

  constructor(folders: readonly WatchedFolder[]) {
    this.#folders = folders;
  }

  /** Events seen so far. */
  get count(): number {
    return this.#count;
  }

  /** Watches each folder not watched yet; one that cannot be watched now is tried next time. */
  ensure(): void {
    for (const { folder, recursive } of this.#folders) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, { recursive }, () => this.#notify());
      } catch {
        // Missing (or not a folder) for now: the slow rescan looks again.
        continue;
      }
      watcher.on("error", () => {
        // A folder removed under its watcher, say: watched again once it is back.
        watcher.close();
        this.#watchers.delete(folder);
        this.#notify();
      });
      this.#watchers.set(folder, watcher);
    }
  }

  /** Resolves once an event came after the `after`-th; at once if one has; never once aborted. */
  changedSince(after: number, signal: AbortSignal): Promise<void> {
    if (this.#count > after) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { after, resolve };
      this.#waiters.add(waiter);
      signal.addEventListener("abort", () => this.#waiters.delete(waiter), { once: true });
    });
  }

  close(): void {
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #notify(): void {
    this.#count += 1;
    for (const waiter of this.#waiters) {
      if (this.#count <= waiter.after) continue;
      this.#waiters.delete(waiter);
      waiter.resolve();
    }
  }
}
