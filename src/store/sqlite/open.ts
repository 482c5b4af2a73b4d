import type Database from "better-sqlite3";
import type { Store } from "../port.js";
import * as copies from "./copies.js";
import { SqliteDb } from "./db.js";
import * as dependants from "./dependants.js";
import { GroupCommit } from "./group-commit.js";
import * as outputs from "./outputs.js";
import * as reports from "./reports.js";
import * as reviews from "./reviews.js";
import * as runs from "./runs.js";
import * as schedules from "./schedules.js";
import * as tasks from "./tasks.js";
import * as transitions from "./transitions.js";
import { locatedFailures, storeUnusable } from "./unusable.js";

/** The SQLite store; `db` is the raw handle, for tests that set up odd states. */
export type SqliteStore = Store & { readonly db: Database.Database };

/**
 * Opens (creating and migrating) the state database at `file` as the store port. Each
 * operation commits before its promise resolves: most are one synchronous better-sqlite3
 * call; the transitions every task makes are committed together per turn (`GroupCommit`).
 */
export function openStore(file: string): SqliteStore {
  let s: SqliteDb;
  try {
    s = new SqliteDb(file);
  } catch (error) {
    throw storeUnusable(error, file) ?? error;
  }
  const group = new GroupCommit(s.db);
  return locatedFailures<SqliteStore>(
    {
      db: s.db,
      close: async () => {
        group.flush();
        s.close();
      },
      learnedRate: async (baseUrl) => runs.learnedRate(s, baseUrl),
      saveLearnedRate: async (baseUrl, rate) => runs.saveLearnedRate(s, baseUrl, rate),

      createRun: async (run) => runs.createRun(s, run),
      finishRun: async (id, status, exitCode, now, stopReason) =>
        runs.finishRun(s, id, status, exitCode, now, stopReason),
      setDependantRules: async (id, rules) => runs.setDependantRules(s, id, rules),
      run: async (id) => runs.run(s, id),
      latestRun: async (name) => runs.latestRun(s, name),
      runs: async (limit) => runs.runs(s, limit),
      runOfTick: async (name, tick) => runs.runOfTick(s, name, tick),
      scheduledRuns: async (name) => runs.scheduledRuns(s, name),
      filesOfRun: async (runId) => runs.filesOfRun(s, runId),
      deleteRun: async (runId) => runs.deleteRun(s, runId),
      recordRunNotice: async (runId, notice) => runs.recordRunNotice(s, runId, notice),
      runNoticesOf: async (runId, limit) => runs.runNoticesOf(s, runId, limit),
      legacyRuns: async () => copies.legacyRuns(s),
      rebasePaths: async (rebases) => copies.rebasePaths(s, rebases),

      task: async (key) => tasks.task(s, key),
      tasksOf: async (runId) => tasks.tasksOf(s, runId),
      tasksByKey: async (keys) => tasks.tasksByKey(s, keys),
      currentTasksOf: async (outputDir, jobId) => tasks.currentTasksOf(s, outputDir, jobId),
      dependantsOf: async (upstreamKey) => tasks.dependantsOf(s, upstreamKey),
      outputsOf: async (key) => tasks.outputsOf(s, key),
      copiesOf: async (key) => copies.copiesOf(s, key),
      outputAt: async (path) => copies.outputAt(s, path),
      textAnswer: async (key) => tasks.textAnswer(s, key),

      recordTasks: async (runId, list, now) => tasks.recordTasks(s, runId, list, now),
      claimForSubmit: (list, owner, now) =>
        group.write(() => transitions.claimForSubmit(s, list, owner, now)),
      recordReceipts: (receipts, now) =>
        group.write(() => transitions.recordReceipts(s, receipts, now)),
      releaseClaim: async (task, release, now) => transitions.releaseClaim(s, task, release, now),
      recordPollRound: (round, now) =>
        group.write(() => transitions.recordPollRound(s, round, now)),
      updateLinks: async (key, links) => outputs.updateLinks(s, key, links),
      recordCopies: async (list) => copies.recordCopies(s, list),
      recordDownloads: (files, now) => group.write(() => outputs.recordDownloads(s, files, now)),
      recordTextAnswer: async (task, answer, files, now) =>
        outputs.recordTextAnswer(s, task, answer, files, now),
      recordChecks: (checked, now) => group.write(() => outputs.recordChecks(s, checked, now)),
      markDone: (task, now) => group.write(() => outputs.markDone(s, task, now)),
      requeue: async (task, from, reason, now) => transitions.requeue(s, task, from, reason, now),
      repoll: async (task, now) => transitions.repoll(s, task, now),
      redownload: async (task, now) => transitions.redownload(s, task, now),
      recheck: async (task, now) => transitions.recheck(s, task, now),
      failTask: async (task, from, to, reason, now, expiredOutput) =>
        transitions.failTask(s, task, from, to, reason, now, expiredOutput),
      recordDependants: async (runId, upstream, list, now) =>
        dependants.recordDependants(s, runId, upstream, list, now),
      recordSkipped: async (runId, upstream, standIns, reason, now) =>
        dependants.recordSkipped(s, runId, upstream, standIns, reason, now),

      reportRows: (scope) => reports.reportRows(s, scope),
      failuresOf: (scope) => reports.failuresOf(s, scope),
      summaryOf: async (scope) => reports.summaryOf(s, scope),
      textAnswersOf: async (runId) => reports.textAnswersOf(s, runId),
      timelineOf: async (runId) => reports.timelineOf(s, runId),
      gridOf: async (runId) => reports.gridOf(s, runId),

      recordReview: async (review, now) => reviews.recordReview(s, review, now),
      reviewsOf: async (scope) => reviews.reviewsOf(s, scope),

      recordTickNotRun: async (tick, now) => schedules.recordTickNotRun(s, tick, now),
      startTick: async (tick, now) => schedules.startTick(s, tick, now),
      finishTick: async (id, end, now) => schedules.finishTick(s, id, end, now),
      ticksOf: async (name, limit) => schedules.ticksOf(s, name, limit),
      lastTickAt: async (name) => schedules.lastTickAt(s, name),
      unfinishedTicks: async (name) => schedules.unfinishedTicks(s, name),
      deleteTicksBefore: async (name, before) => schedules.deleteTicksBefore(s, name, before),
      acquireLease: async (name, holder, now, ttlMs, isGone) =>
        schedules.acquireLease(s, name, holder, now, ttlMs, isGone),
      renewLease: async (name, holderId, now, ttlMs) =>
        schedules.renewLease(s, name, holderId, now, ttlMs),
      releaseLease: async (name, holderId) => schedules.releaseLease(s, name, holderId),
      leaseOf: async (name) => schedules.leaseOf(s, name),
    },
    file,
  );
}
