import { existsSync } from "node:fs";
import { commandIo } from "../core/io.js";
import { projectFolder } from "../core/project.js";
import type { PlanDiff, PlanStore } from "../plan/index.js";
import {
  defaultStore,
  isPostgres,
  type StoreAt,
  type StoreFlags,
  storeAt,
  storeName,
  withStore,
} from "./store.js";

/**
 * Where a plan's new tasks are done already: a manifest copied into another project plans
 * against that project's store, where every task is new, while their record stays in the store
 * of the project the person works in. That one, the store a command started in the working
 * folder opens, is the only other store looked in: no guessing, no list of stores kept.
 */

/** The other store and how many of the plan's tasks it records (made, or on their way). */
export interface DoneElsewhere {
  store: string;
  known: number;
}

/**
 * The working folder's store when the manifest's store is another (no store named by flag
 * or environment) and it records tasks of this plan (`planIn` makes the plan against a
 * store); else undefined.
 */
export async function doneElsewhere(
  at: StoreAt,
  flags: StoreFlags & { force?: boolean },
  planIn: (store: PlanStore) => Promise<Omit<PlanDiff, "tasks">>,
): Promise<DoneElsewhere | undefined> {
  const { env } = commandIo();
  const named = [flags.db, flags.store, env.GWRUN_DB, env.GWRUN_STORE].some(
    (given) => given !== undefined && given !== "",
  );
  if (named || flags.force === true) return undefined;
  const here = defaultStore();
  if (here === undefined || here === at.location || isPostgres(here) || !existsSync(here))
    return undefined;
  const project = storeAt({}, projectFolder(commandIo().cwd));
  const plan = await withStore(project, planIn, { migrate: false });
  const known = plan.totals.tasks - plan.totals.status.new;
  return known <= 0 ? undefined : { store: storeName(here), known };
}
