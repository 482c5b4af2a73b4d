import { EXIT_BY_END, type RunEnd, runResult, STATUS_BY_END } from "../engine/index.js";
import type { FleetRunRow, PgStore, RunRow } from "../store/index.js";

/**
 * Records a settled run's ending and writes its report, once across the fleet: true for the
 * process that did.
 */
export async function settleFleetRun(store: PgStore, row: FleetRunRow): Promise<boolean> {
  const halt = (row.halt ?? undefined) as RunEnd | undefined;
  const result = await runResult(store, row.id, halt, await store.fleet.unknownSubmitsOf(row.id));
  const end = { status: STATUS_BY_END[result.end], exitCode: EXIT_BY_END[result.end] };
  if (!(await store.fleet.settleRun(row.id, { ...end, now: Date.now() }))) return false;
  const { writeReport } = await import("../postprocess/index.js");
  await writeReport(store, (await store.run(row.id)) as RunRow);
  return true;
}
