import { ErrorCode, GwError } from "../core/errors.js";
import type { RunRow, Store } from "../store/index.js";
import { findRun, storeName } from "./store.js";

/**
 * The run a review command acts on (`retry --rejected`, `export --approved`) when none is
 * named: the latest run when it has outputs so decided; else the one latest run of a manifest
 * that has; never, silently, another manifest's run. When latest runs of several manifests
 * have such outputs, the command asks which.
 */

/** How many of the latest runs are looked through for their manifests' latest runs. */
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
  const latestOfEach = new Map<string, RunRow>();
  for (const run of await store.runs(RUNS_LOOKED_AT))
    if (!latestOfEach.has(run.name)) latestOfEach.set(run.name, run);
  const decided: RunRow[] = [];
  for (const run of latestOfEach.values())
    if (await hasDecided(store, run, decision)) decided.push(run);
  if (decided.length === 0) return latest;
  if (decided.length === 1) return decided[0] as RunRow;
  throw new GwError(
    ErrorCode.Usage,
    `the latest runs of ${decided.length} manifests in ${storeName(db)} have ${decision} outputs: name the run to act on`,
    {
      hint: decided
        .map((run) => `gwrun ${command} ${run.id}   (${run.name}, ${nameOfTime(run)})`)
        .join("\n  "),
    },
  );
}

async function hasDecided(store: Store, run: RunRow, decision: Decision): Promise<boolean> {
  return (await store.reviewsOf({ run: run.id })).some((review) => review.decision === decision);
}

function nameOfTime(run: RunRow): string {
  return `started ${new Date(run.started_at).toISOString().replace(/\.\d+Z$/, "Z")}`;
}
