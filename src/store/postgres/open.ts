import type { FleetStore } from "../fleet-port.js";
import type { Store } from "../port.js";
import * as copies from "./copies.js";
import { PgDb } from "./db.js";
import * as dependants from "./dependants.js";
import * as claims from "./fleet-claims.js";
import { LeaderLock, pollLeaders, queueDepth } from "./fleet-leader.js";
import * as fleetRuns from "./fleet-runs.js";
import * as fleetStatus from "./fleet-status.js";
import * as workers from "./fleet-workers.js";
import { migrate, needsMigration } from "./migrate.js";
import * as outputs from "./outputs.js";
import { recordPollRound } from "./poll-round.js";
import * as reports from "./reports.js";
import * as reviews from "./reviews.js";
import * as runs from "./runs.js";
import * as schedules from "./schedules.js";
import * as tasks from "./tasks.js";
import * as transitions from "./transitions.js";
import { pgStoreUnusable } from "./unusable.js";

/** The PostgreSQL store; `pool` is the raw handle, for tests that set up odd states. */
export type PgStore = Store & { readonly pool: PgDb["pool"]; readonly fleet: FleetStore };

/**
 * Opens the PostgreSQL store at `url` (a `postgres://` connection string) as the store port,
 * creating or updating its schema unless `migrate` is false (then a missing schema is an
 * error). Each operation commits before its promise resolves.
 */
export async function openPgStore(
  url: string,
  options: { migrate?: boolean } = {},
): Promise<PgStore> {
  const db = new PgDb(url);
  try {
    await requireSchemaSelected(db);
    if (options.migrate === false) {
      if (await needsMigration(db)) throw missingSchema(url);
    } else await migrate(db);
  } catch (error) {
    await db.close();
    throw pgStoreUnusable(error, url) ?? error;
  }
  return located(pgStore(db, url), url);
}

/**
 * The store with every failure that says the database is unusable (a lost connection, a
 * refused login) turned into a located error naming it, without its password.
 */
function located(store: PgStore, url: string): PgStore {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    wrapped[name] =
      typeof value === "function"
        ? (...args: unknown[]) => {
            const result: unknown = value(...args);
            return result instanceof Promise
              ? result.catch((error: unknown) => {
                  throw pgStoreUnusable(error, url) ?? error;
                })
              : result;
          }
        : value;
  }
  return wrapped as unknown as PgStore;
}

/**
 * A search_path that names no schema that exists leaves nowhere to find or make the tables:
 * said before anything is made (graphile-worker's schema would be, in its own).
 */
async function requireSchemaSelected(db: PgDb): Promise<void> {
  const { rows } = await db.pool.query<{ schema: string | null }>(
    "SELECT current_schema() AS schema",
  );
  if (rows[0]?.schema === null)
    throw Object.assign(new Error("no schema selected"), { code: INVALID_SCHEMA_NAME });
}

/** PostgreSQL's code for "no schema has been selected to create in". */
const INVALID_SCHEMA_NAME = "3F000";

function missingSchema(url: string): Error {
  return Object.assign(new Error("schema missing"), { code: "GWRUN_NO_SCHEMA", url });
}

function pgStore(db: PgDb, url: string): PgStore {
  return {
    pool: db.pool,
    fleet: fleetStore(db, url),
    close: () => db.close(),
    learnedRate: (baseUrl) => runs.learnedRate(db, baseUrl),
    saveLearnedRate: (baseUrl, rate) => runs.saveLearnedRate(db, baseUrl, rate),

    createRun: (run) => runs.createRun(db, run),
    finishRun: (id, status, exitCode, now, stopReason) =>
      runs.finishRun(db, id, status, exitCode, now, stopReason),
    setDependantRules: (id, rules) => runs.setDependantRules(db, id, rules),
    run: (id) => runs.run(db, id),
    latestRun: (name) => runs.latestRun(db, name),
    runs: (limit) => runs.runs(db, limit),
    runOfTick: (name, tick) => runs.runOfTick(db, name, tick),
    scheduledRuns: (name) => runs.scheduledRuns(db, name),
    filesOfRun: (runId) => runs.filesOfRun(db, runId),
    deleteRun: (runId) => runs.deleteRun(db, runId),
    recordRunNotice: (runId, notice) => runs.recordRunNotice(db, runId, notice),
    runNoticesOf: (runId, limit) => runs.runNoticesOf(db, runId, limit),
    legacyRuns: () => copies.legacyRuns(db),
    rebasePaths: (rebases) => copies.rebasePaths(db, rebases),

    task: (key) => tasks.task(db.pool, key),
    tasksOf: (runId) => tasks.tasksOf(db.pool, runId),
    tasksByKey: (keys) => tasks.tasksByKey(db.pool, keys),
    currentTasksOf: (outputDir, jobId) => tasks.currentTasksOf(db.pool, outputDir, jobId),
    dependantsOf: (upstreamKey) => tasks.dependantsOf(db.pool, upstreamKey),
    outputsOf: (key) => tasks.outputsOf(db.pool, key),
    copiesOf: (key) => copies.copiesOf(db, key),
    outputAt: (path) => copies.outputAt(db, path),
    textAnswer: (key) => tasks.textAnswer(db.pool, key),

    recordTasks: (runId, list, now) =>
      db.transaction((sql) => tasks.recordTasks(sql, runId, list, now)),
    claimForSubmit: (list, owner, now) => transitions.claimForSubmit(db, list, owner, now),
    recordReceipts: (receipts, now) => transitions.recordReceipts(db, receipts, now),
    releaseClaim: (task, release, now) => transitions.releaseClaim(db, task, release, now),
    recordPollRound: (round, now) => recordPollRound(db, round, now),
    updateLinks: (key, links) => outputs.updateLinks(db, key, links),
    recordCopies: (list) => copies.recordCopies(db, list),
    recordDownloads: (files, now) => outputs.recordDownloads(db, files, now),
    recordTextAnswer: (task, answer, files, now) =>
      outputs.recordTextAnswer(db, task, answer, files, now),
    recordChecks: (checked, now) => outputs.recordChecks(db, checked, now),
    markDone: (task, now) => outputs.markDone(db, task, now),
    requeue: (task, from, reason, now) => transitions.requeue(db, task, from, reason, now),
    repoll: (task, now) => transitions.repoll(db, task, now),
    redownload: (task, now) => transitions.redownload(db, task, now),
    recheck: (task, now) => transitions.recheck(db, task, now),
    failTask: (task, from, to, reason, now, expiredOutput) =>
      transitions.failTask(db, task, from, to, reason, now, expiredOutput),
    recordDependants: (runId, upstream, list, now) =>
      dependants.recordDependants(db, runId, upstream, list, now),
    recordSkipped: (runId, upstream, standIns, reason, now) =>
      dependants.recordSkipped(db, runId, upstream, standIns, reason, now),

    reportRows: (scope) => reports.reportRows(db, scope),
    failuresOf: (scope) => reports.failuresOf(db, scope),
    summaryOf: (scope) => reports.summaryOf(db, scope),
    textAnswersOf: (runId) => reports.textAnswersOf(db, runId),
    timelineOf: (runId) => reports.timelineOf(db, runId),
    gridOf: (runId) => reports.gridOf(db, runId),

    recordReview: (review, now) => reviews.recordReview(db, review, now),
    reviewsOf: (scope) => reviews.reviewsOf(db, scope),

    recordTickNotRun: (tick, now) => schedules.recordTickNotRun(db, tick, now),
    startTick: (tick, now) => schedules.startTick(db, tick, now),
    finishTick: (id, end, now) => schedules.finishTick(db, id, end, now),
    ticksOf: (name, limit) => schedules.ticksOf(db, name, limit),
    lastTickAt: (name) => schedules.lastTickAt(db, name),
    unfinishedTicks: (name) => schedules.unfinishedTicks(db, name),
    deleteTicksBefore: (name, before) => schedules.deleteTicksBefore(db, name, before),
    acquireLease: (name, holder, now, ttlMs, isGone) =>
      schedules.acquireLease(db, name, holder, now, ttlMs, isGone),
    renewLease: (name, holderId, now, ttlMs) =>
      schedules.renewLease(db, name, holderId, now, ttlMs),
    releaseLease: (name, holderId) => schedules.releaseLease(db, name, holderId),
    leaseOf: (name) => schedules.leaseOf(db, name),
  };
}

function fleetStore(db: PgDb, url: string): FleetStore {
  return {
    url,
    registerWorker: (worker) => workers.registerWorker(db, worker),
    addWorkerPool: (workerId, poolId) => workers.addWorkerPool(db, workerId, poolId),
    heartbeat: (workerId) => workers.heartbeat(db, workerId),
    workerStopped: (workerId) => workers.workerStopped(db, workerId),
    reapWorkers: (leaseMs, gone) => workers.reapWorkers(db, leaseMs, gone),
    workersOf: () => workers.workersOf(db),
    taskWithOutputs: (key) => tasks.taskWithOutputs(db.pool, key),
    claimWithin: (task, owner, limits, now) => claims.claimWithin(db, task, owner, limits, now),
    recordClaimedReceipt: (receipt, owner, now) =>
      claims.recordClaimedReceipt(db, receipt, owner, now),
    resolveDeadClaim: (task, policy, reason, now) =>
      claims.resolveDeadClaim(db, task, policy, reason, now),
    heldByGateway: (runIds) => claims.heldByGateway(db, runIds),
    orphansOf: (limit) => claims.orphansOf(db, limit),
    setResolvedManifest: (runId, text) => fleetRuns.setResolvedManifest(db, runId, text),
    fleetRun: (runId) => fleetRuns.fleetRun(db, runId),
    activeRuns: () => fleetRuns.activeRuns(db),
    haltRun: (runId, halt, message) => fleetRuns.haltRun(db, runId, halt, message),
    clearHalt: (runId) => fleetRuns.clearHalt(db, runId),
    hasWorkLeft: (runId, halted) => fleetRuns.hasWorkLeft(db, runId, halted),
    settleRun: (runId, end) => fleetRuns.settleRun(db, runId, end),
    queueRun: (runId) => fleetRuns.queueRun(db, runId),
    movesSince: (runId, afterId, limit) => fleetRuns.movesSince(db, runId, afterId, limit),
    unknownSubmitsOf: (runId) => fleetRuns.unknownSubmitsOf(db, runId),
    storeId: () => fleetRuns.storeId(db),
    lastEventId: () => fleetRuns.lastEventId(db),
    leaderLock: (account, workerId) => new LeaderLock(url, account, workerId),
    pollLeaders: () => pollLeaders(db),
    queueDepth: (within) => queueDepth(db, within),
    paceRows: () => fleetStatus.paceRows(db),
    submitsByWorker: (runId) => fleetStatus.submitsByWorker(db, runId),
    orphanCount: () => fleetStatus.orphanCount(db),
  };
}
