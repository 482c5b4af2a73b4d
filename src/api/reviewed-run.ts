import { ErrorCode, GwError } from "../core/errors.js";
import type { RunRow, Store } from "../store/index.js";
import { findRun, storeName } from "./store.js";

/**
 * The run a review command acts on (`retry --rejected`, `export --approved`) when none is
 * named: the latest run when it has outputs so decided; else the latest run that has, when
 * those runs are all of one manifest; never, silently, another manifest's run. When runs of
 * several manifests have such outputs, the command asks which.
 */

/** How many of the latest runs are looked through for outputs so decided. */
const RUNS_LOOKED_AT = 1000;

export type Decision = "approved" | "rejected";

export async function reviewedRun(
  store: Store,
  db: string,
  ref: string | undefined,
  decision: Decision,
  command: string,
): Promise<RunRow> {
  const latest = await findRun(store, db, ref);
  if (ref !== undefined || (await hasDecided(store, latest, decision))) return latest;
  const decided = await latestDecidedOfEachManifest(store, decision);
  if (decided.length === 0) return latest;
  if (decided.length === 1) return decided[0] as RunRow;
  throw new GwError(
    ErrorCode.Usage,
    `runs of ${decided.length} manifests in ${storeName(db)} have ${decision} outputs: name the run to act on`,
    {
      hint: decided
        .map((run) => `gwrun ${command} ${run.id}   (${run.name}, ${nameOfTime(run)})`)
        .join("\n  "),
    },
  );
}

/**
 * Each manifest's latest run with outputs so decided, newest first: a review of an earlier run
 * is found even when the manifest ran again since.
 */
async function latestDecidedOfEachManifest(store: Store, decision: Decision): Promise<RunRow[]> {
  const found = new Map<string, RunRow>();
  for (const run of await store.runs(RUNS_LOOKED_AT))
    if (!found.has(run.name) && (await hasDecided(store, run, decision))) found.set(run.name, run);
  return [...found.values()];
}

async function hasDecided(store: Store, run: RunRow, decision: Decision): Promise<boolean> {
  return (await store.reviewsOf({ run: run.id })).some((review) => review.decision === decision);
}

function nameOfTime(run: RunRow): string {
  return `started ${new Date(run.started_at).toISOString().replace(/\.\d+Z$/, "Z")}`;
}
