import { ErrorCode, GwError } from "../core/errors.js";
import { resolveFromCwd } from "../core/io.js";
import { type PublishTarget, publishTargetsOfRun } from "../manifest/index.js";
import type { RunRow, Store } from "../store/index.js";

/**
 * A prefix belongs to one output folder. Objects keep the folder's layout under a target's
 * prefix, so within one folder their keys are as unique as its file names; a second folder
 * publishing under the same prefix (another manifest, a tick of a schedule whose folders are
 * dated but whose target is not), or under one inside it, would write over objects another
 * run recorded. `plan` shows such a target, and a run refuses it before anything is paid.
 */

/** A target whose prefix another folder's run publishes into. */
export interface HeldTarget {
  target: string;
  /** The run that holds it, its manifest's name, and the folder it publishes from. */
  run: number;
  name: string;
  outputDir: string;
  /** The prefix it holds, when another than `target` (one inside the other). */
  held: string;
}

/** Of `targets`, those another folder's run (of `runs`) publishes into. */
export function heldTargets(
  targets: readonly PublishTarget[],
  outputDir: string,
  runs: readonly RunRow[],
): HeldTarget[] {
  const held: HeldTarget[] = [];
  for (const target of targets) {
    for (const run of runs) {
      if (resolveFromCwd(run.output_dir) === resolveFromCwd(outputDir)) continue;
      if (run.publish_to === null) continue;
      const theirs = publishTargetsOfRun(run, {}).find((other) => overlaps(other, target));
      if (theirs === undefined) continue;
      held.push({
        target: target.url,
        run: run.id,
        name: run.name,
        outputDir: run.output_dir,
        held: theirs.url,
      });
      break;
    }
  }
  return held;
}

/** The targets another folder holds, read from the store (`heldTargets`). */
export async function heldTargetsIn(
  store: Pick<Store, "publishingRuns">,
  targets: readonly PublishTarget[],
  outputDir: string,
): Promise<HeldTarget[]> {
  if (targets.length === 0) return [];
  return heldTargets(targets, outputDir, await store.publishingRuns());
}

/** Throws, saying what to do, when another folder holds one of `targets`. */
export async function refuseHeldTargets(
  store: Pick<Store, "publishingRuns">,
  targets: readonly PublishTarget[],
  outputDir: string,
): Promise<void> {
  const [first] = await heldTargetsIn(store, targets, outputDir);
  if (first === undefined) return;
  throw new GwError(ErrorCode.Usage, heldTargetText(first), {
    hint: "give this manifest a prefix of its own (publish: s3://bucket/…/{name}, with {date} for a schedule)",
  });
}

/** What `plan` and a refused run say of a held target. */
export function heldTargetText(held: HeldTarget): string {
  const inside = held.held === held.target ? "" : ` (through ${held.held})`;
  return `${held.target} holds the objects of run ${held.run} (${held.name}, folder ${held.outputDir})${inside}: publishing this folder there would write over them`;
}

/** Whether one target's keys may meet the other's: one bucket, one prefix at or inside the other. */
function overlaps(a: PublishTarget, b: PublishTarget): boolean {
  if (a.bucket !== b.bucket) return false;
  const inside = (outer: string, inner: string) =>
    outer === "" || inner === outer || inner.startsWith(`${outer}/`);
  return inside(a.prefix, b.prefix) || inside(b.prefix, a.prefix);
}
