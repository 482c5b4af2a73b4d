import type { ScheduleStore } from "./port.js";
import type { LeaseHolder, LeaseRow, NewRun } from "./rows.js";

/**
 * The SQL-free parts of recording runs, ticks and leases, which both stores share: the values
 * a new row takes (in the column order both INSERTs name) and when a lease stays another's.
 */

/** A tick recorded without a run (the port's `recordTickNotRun`). */
export type TickNotRun = Parameters<ScheduleStore["recordTickNotRun"]>[0];

/**
 * A new run's values for
 * `(name, manifest_path, manifest_text, base_url, output_dir, started_at, tick, project_dir)`.
 */
export function newRunValues(run: NewRun): (string | number | null)[] {
  return [
    run.name,
    run.manifest_path,
    run.manifest_text,
    run.base_url,
    run.output_dir,
    run.started_at,
    run.tick ?? null,
    run.project_dir ?? null,
  ];
}

/** A tick's values for `(name, tick, status, trigger, reason, fired_at)`. */
export function tickNotRunValues(tick: TickNotRun, now: number): (string | number)[] {
  return [tick.name, tick.tick, tick.status, tick.trigger, tick.reason, now];
}

/** A lease's values for `(name, holder, host, pid, acquired_at, expires_at)`. */
export function leaseValues(
  name: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
): (string | number)[] {
  return [name, holder.id, holder.host, holder.pid, now, now + ttlMs];
}

/** Whether `lease` keeps another holder's claim: not `holder`'s own, not expired, its holder alive. */
export function leaseKeptFrom(
  lease: LeaseRow | undefined,
  holder: LeaseHolder,
  now: number,
  isGone: (lease: LeaseRow) => boolean,
): lease is LeaseRow {
  return (
    lease !== undefined && lease.holder !== holder.id && lease.expires_at > now && !isGone(lease)
  );
}
