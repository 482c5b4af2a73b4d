import {
  type ArgsOf,
  changes,
  first,
  lockName,
  type Program,
  read,
  rows,
  transaction,
  write,
} from "../program.js";
import type { LeaseRow, TickRow } from "../schedule-rows.js";

/** Scheduled manifests: tick records, and the lease that keeps a manifest from running twice. */

function* leaseOf(name: string): Program<LeaseRow | undefined> {
  return yield* first<LeaseRow>("SELECT * FROM leases WHERE name = ?", [name]);
}

export const scheduleOperations = {
  recordTickNotRun: write(function* (...[tick, now]: ArgsOf<"recordTickNotRun">) {
    yield* changes(
      "INSERT INTO ticks (name, tick, status, trigger, reason, fired_at) VALUES (?, ?, ?, ?, ?, ?)",
      [tick.name, tick.tick, tick.status, tick.trigger, tick.reason, now],
    );
  }),
  /** An unfinished record of the tick is taken up again; else a new one. */
  startTick: transaction(function* (...[tick, now]: ArgsOf<"startTick">) {
    yield* lockName(tick.name);
    const open = yield* first<{ id: number }>(
      `SELECT id FROM ticks WHERE name = ? AND tick = ? AND status IN ('running', 'interrupted')
       ORDER BY id DESC LIMIT 1`,
      [tick.name, tick.tick],
    );
    if (open !== undefined) {
      yield* changes(
        `UPDATE ticks SET status = 'running', trigger = ?, fired_at = ?, exit_code = NULL,
           finished_at = NULL WHERE id = ?`,
        [tick.trigger, now, open.id],
      );
      return open.id;
    }
    const created = yield* first<{ id: number }>(
      `INSERT INTO ticks (name, tick, status, trigger, fired_at) VALUES (?, ?, 'running', ?, ?)
       RETURNING id`,
      [tick.name, tick.tick, tick.trigger, now],
    );
    if (created === undefined) throw new Error("the tick was not recorded");
    return created.id;
  }),
  finishTick: write(function* (...[id, end, now]: ArgsOf<"finishTick">) {
    yield* changes(
      "UPDATE ticks SET status = ?, run_id = ?, exit_code = ?, finished_at = ? WHERE id = ?",
      [end.status, end.runId, end.exitCode, now, id],
    );
  }),
  ticksOf: read(function* (name: string, limit: number) {
    return yield* rows<TickRow>(
      "SELECT * FROM ticks WHERE name = ? ORDER BY tick DESC, id DESC LIMIT ?",
      [name, limit],
    );
  }),
  lastTickAt: read(function* (name: string) {
    const found = yield* first<{ tick: number | null }>(
      "SELECT max(tick) AS tick FROM ticks WHERE name = ?",
      [name],
    );
    return found?.tick ?? undefined;
  }),
  unfinishedTicks: read(function* (name: string) {
    return yield* rows<TickRow>(
      "SELECT * FROM ticks WHERE name = ? AND status IN ('running', 'interrupted') ORDER BY tick",
      [name],
    );
  }),
  deleteTicksBefore: write(function* (name: string, before: number) {
    yield* changes("DELETE FROM ticks WHERE name = ? AND tick < ?", [name, before]);
  }),
  /** Two processes asking at once: the second reads the first's lease. */
  acquireLease: transaction(function* (
    ...[name, holder, now, ttlMs, isGone]: ArgsOf<"acquireLease">
  ) {
    yield* lockName(name);
    const lease = yield* leaseOf(name);
    // Kept while another holder's, not expired, and that holder alive.
    if (
      lease !== undefined &&
      lease.holder !== holder.id &&
      lease.expires_at > now &&
      !isGone(lease)
    )
      return { acquired: false as const, lease };
    yield* changes(
      `INSERT INTO leases (name, holder, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, host = excluded.host,
         pid = excluded.pid, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
      [name, holder.id, holder.host, holder.pid, now, now + ttlMs],
    );
    return { acquired: true as const };
  }),
  renewLease: write(function* (name: string, holderId: string, now: number, ttlMs: number) {
    const renewed = yield* changes(
      "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?",
      [now + ttlMs, name, holderId],
    );
    return renewed === 1;
  }),
  releaseLease: write(function* (name: string, holderId: string) {
    yield* changes("DELETE FROM leases WHERE name = ? AND holder = ?", [name, holderId]);
  }),
  leaseOf: read(leaseOf),
};
