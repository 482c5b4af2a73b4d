import { commandIo } from "../core/io.js";
import { runResult } from "../engine/index.js";
import { notifyTargetsOf, publishTargetsOfRun } from "../manifest/index.js";
import { endRun, openStorage, Releasers } from "../run/index.js";
import type { FleetRunRow, PgStore } from "../store/index.js";
import { haltOf } from "./fleet-run.js";

/**
 * Ends a fleet's run as every run ends (`endRun`): the renditions its manifest asks for made
 * of the outputs on this host's disk, what its uploads missed published from this host's
 * folder, its ending recorded once across the fleet, its report written and its `notify:`
 * webhooks told — by the process that recorded it: true for that one. The targets
 * are those the run began with; the webhooks are read from the manifest as written with this
 * host's environment (the fleet's copy holds none). `tell` hears what publishing found.
 */
export async function settleFleetRun(
  store: PgStore,
  row: FleetRunRow,
  tell: (line: string) => void,
): Promise<boolean> {
  const env = commandIo().env;
  const result = await runResult(
    store,
    row.id,
    haltOf(row),
    await store.fleet.unknownSubmitsOf(row.id),
  );
  const targets = publishTargetsOfRun(row, env);
  const { targets: webhooks, problems } = notifyTargetsOf(
    row.manifest_text,
    row.manifest_path,
    env,
  );
  const releasers = new Releasers();
  try {
    const storage =
      targets.length === 0
        ? undefined
        : releasers.push(
            await openStorage(targets, env, undefined, (line) => tell(`run ${row.id}: ${line}`)),
            (opened) => opened.client.destroy(),
          );
    const ended = await endRun({
      store,
      run: row,
      result,
      publishing: storage === undefined ? undefined : { storage, targets },
      record: (status, exitCode, states) =>
        store.fleet.settleRun(row.id, { status, exitCode, now: Date.now(), states }),
      notify: { targets: webhooks, tell: (message) => tell(`run ${row.id}: ${message}`) },
    });
    if (!ended.recorded) return false;
    for (const line of ended.lines) tell(`run ${row.id}: ${line}`);
    for (const problem of problems) tell(`run ${row.id}: ${problem}; nothing posted`);
    await ended.notify();
    return true;
  } finally {
    await releasers.release();
  }
}
