import type { ManifestSettings, PublishTarget } from "../manifest/index.js";
import type { ObjectStorage } from "../publish/index.js";
import type { Store } from "../store/index.js";
import { Releasers } from "./releasers.js";
import { type OpenedGateway, openGateway } from "./setup.js";

/**
 * A run opened, for any driver: the gateway it talks to (or the simulator started for it),
 * the object storage it publishes to, and what to release when it ends — opened in one place
 * for `gwrun run` (and resume, retry, the API, the schedule daemon) and for a fleet's worker.
 */
export interface RunSession {
  gateway: OpenedGateway;
  /** Object storage, when the manifest publishes; undefined otherwise. */
  storage: ObjectStorage | undefined;
  targets: readonly PublishTarget[];
  /** Everything the run opened, the caller's own too (a store, a shared pace), newest first. */
  releasers: Releasers;
  release(): Promise<void>;
}

export interface RunOpening {
  settings: ManifestSettings;
  /** Where requests go: the manifest's `base_url`, or `--base-url`. */
  baseUrl: string;
  /** The manifest's key is masked (a run's copy): GW_API_KEY must give it. */
  keyMasked: boolean;
  env: NodeJS.ProcessEnv;
  /**
   * A new run checks its storage before anything is paid: reachable with the credentials at
   * hand, and no prefix another folder's run publishes into (`folder`). A worker opening a
   * recorded run trusts it (`undefined`).
   */
  checkStorage?: { store: Pick<Store, "publishingRuns">; outputDir: string };
  /** What the caller opened first, released with the run (default: a stack of its own). */
  releasers?: Releasers;
  /** Hears what the person should know as it happens (uploads being tried again). */
  tell?: (line: string) => void;
}

/** Object storage refused a run before anything was paid: its message says what to check. */
export class StorageRefused extends Error {}

/**
 * Opens the run's storage and gateway; throws, having released what it opened, when one
 * refuses (`StorageRefused` for the storage).
 */
export async function openRun(opening: RunOpening): Promise<RunSession> {
  const releasers = opening.releasers ?? new Releasers();
  const targets = opening.settings.output.publish;
  try {
    const storage =
      targets.length === 0
        ? undefined
        : releasers.push(
            await openStorage(targets, opening.env, opening.checkStorage, opening.tell).catch(
              (error: unknown) => {
                throw new StorageRefused(error instanceof Error ? error.message : String(error), {
                  cause: error,
                });
              },
            ),
            (opened) => opened.client.destroy(),
          );
    const gateway = releasers.push(
      await openGateway(opening.settings, opening.baseUrl, opening.keyMasked, opening.env),
      (opened) => opened.close(),
    );
    return { gateway, storage, targets, releasers, release: () => releasers.release() };
  } catch (error) {
    await releasers.release();
    throw error;
  }
}

/**
 * Object storage for `targets`; with `check`, each target is checked before anything is paid
 * for (its prefix this folder's, reachable with the credentials at hand): throws with what to do.
 */
export async function openStorage(
  targets: readonly PublishTarget[],
  env: NodeJS.ProcessEnv,
  check?: { store: Pick<Store, "publishingRuns">; outputDir: string },
  tell?: (line: string) => void,
): Promise<ObjectStorage> {
  const { openObjectStorage, checkTargets, refuseHeldTargets } = await import(
    "../publish/index.js"
  );
  if (check !== undefined) await refuseHeldTargets(check.store, targets, check.outputDir);
  const storage = openObjectStorage(env, tell);
  try {
    if (check !== undefined) await checkTargets(storage, targets);
  } catch (error) {
    storage.client.destroy();
    throw error;
  }
  return storage;
}
