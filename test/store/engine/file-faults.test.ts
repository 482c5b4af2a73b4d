import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../../src/api/index.js";
import { failureOf } from "../../../src/cli/program.js";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import { partialDir } from "../../../src/core/output-files.js";
import type { RunResult } from "../../../src/engine/index.js";
import { writeReport } from "../../../src/postprocess/index.js";
import type { RunRow } from "../../../src/store/index.js";
import { type EngineRig, stillsJobs, withEngine } from "../../helpers/engine.js";
import { FailingWrites, sqliteDisk } from "../../helpers/failing-writes.js";
import { tempDir } from "../../helpers/manifest.js";

/**
 * The full and read-only disks on every machine, through
 * injected writes (`FailingWrites`, `sqliteDisk`) instead of a mounted tmpfs: the same
 * assertions as test/e2e/engine/local-fault.test.ts, store-fault.test.ts and
 * test/e2e/store/unusable.test.ts make where this process may mount.
 */

const PACED = `limits: { submit_rate: 1/s }
poll: { first_after: 5s, every: 2s }
${stillsJobs(3)}`;

/** The run's stop: its end, counts, and the message it stopped with. */
async function stoppedRun(rig: EngineRig, running: Promise<RunResult>) {
  const stopped = await rig.finish(running);
  const stop = rig.events.find((event) => event.type === "run:stopping");
  return { stopped, message: stop?.type === "run:stopping" ? stop.message : undefined };
}

describe("a disk that fails the run's files, on every machine", () => {
  it("a full disk under the downloads stops the run with a clear message and keeps completed tasks completed; the next run downloads them without submitting", async () => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(3)}`, async (rig) => {
      const full = new FailingWrites({ code: "ENOSPC" }, rig.files);
      const { stopped, message } = await stoppedRun(rig, rig.engine({ files: full }).run());

      expect((await rig.tasks()).map((task) => task.reason)).toEqual([null, null, null]);
      expect(stopped.end).toBe("failed");
      expect(stopped.counts).toEqual({ completed: 3 });
      expect(message).toMatch(
        /^stopping: cannot write \S+: the disk is full \(ENOSPC\); free space or fix the folder's permissions/,
      );
      expect(rig.events.some((event) => event.type === "task:failed")).toBe(false);
      expect(full.refused.length).toBeGreaterThan(0);
      // Nothing half-written is left beside the output folder.
      expect(readdirSync(partialDir(rig.outputDir))).toEqual([]);

      const paid = rig.sim.counters().submits.accepted;
      expect(paid).toBe(3);
      const resumed = await rig.finish(rig.engine().run());
      expect(resumed).toMatchObject({ end: "done", counts: { done: 3 } });
      expect(rig.sim.counters().submits.accepted).toBe(paid);
    });
  });

  it("a disk that fills part-way keeps the files written before it and downloads only the rest on the next run", async () => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(3)}`, async (rig) => {
      // Room for one picture of the simulator's (65 to 90 KB each), not two.
      const filling = new FailingWrites({ code: "ENOSPC", afterBytes: 100_000 }, rig.files);
      const { stopped } = await stoppedRun(rig, rig.engine({ files: filling }).run());
      expect(stopped.end).toBe("failed");
      expect(stopped.counts).toEqual({ done: 1, completed: 2 });

      const resumed = await rig.finish(rig.engine().run());
      expect(resumed).toMatchObject({ end: "done", counts: { done: 3 } });
      expect(rig.sim.counters().submits.accepted).toBe(3);
    });
  });

  it("a read-only output disk stops the run saying the folder cannot be written (EROFS), nothing paid twice", async () => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(2)}`, async (rig) => {
      const readOnly = new FailingWrites({ code: "EROFS" }, rig.files);
      const { stopped, message } = await stoppedRun(rig, rig.engine({ files: readOnly }).run());
      expect(stopped).toMatchObject({ end: "failed", counts: { completed: 2 } });
      expect(message).toMatch(
        /^stopping: cannot write \S+: the folder cannot be written \(EROFS\)/,
      );

      const resumed = await rig.finish(rig.engine().run());
      expect(resumed).toMatchObject({ end: "done", counts: { done: 2 } });
      expect(rig.sim.counters().submits.accepted).toBe(2);
    });
  });

  it("a full disk at the thumbnails and sidecars fails no paid task as broken", async () => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(2)}`, async (rig) => {
      const full = new FailingWrites({ code: "ENOSPC", only: /\.thumbs|\.json$/ }, rig.files);
      const postprocess = rig.postProcessor({ files: full, thumbnails: true });
      const { stopped, message } = await stoppedRun(
        rig,
        rig.engine({ files: full, postprocess }).run(),
      );
      expect(full.refused.length).toBeGreaterThan(0);
      // The pictures are whole and paid: the disk, not the gateway, failed them.
      expect(rig.events.filter((event) => event.type === "task:failed")).toEqual([]);
      expect(stopped).toMatchObject({ end: "failed", counts: { downloaded: 2 } });
      expect(message).toMatch(/^stopping: cannot write \S+: the disk is full \(ENOSPC\)/);

      const resumed = await rig.finish(
        rig.engine({ postprocess: rig.postProcessor({ thumbnails: true }) }).run(),
      );
      expect(resumed).toMatchObject({ end: "done", counts: { done: 2 } });
      expect(rig.sim.counters().submits.accepted).toBe(2);
    });
  });

  it("a full or read-only disk at results.jsonl or the gallery names the record, leaves the earlier one whole and no partial beside it", async () => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(2)}`, async (rig) => {
      await rig.finish(rig.engine().run());
      const run = (await rig.store.run(rig.runId)) as RunRow;
      await writeReport(rig.store, run);
      const results = path.join(rig.outputDir, "results.jsonl");
      const before = readFileSync(results, "utf8");

      const full = new FailingWrites({ code: "ENOSPC", only: /results\.jsonl/ }, rig.files);
      const error = await writeReport(rig.store, run, "folder", full).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(GwError);
      expect(error).toMatchObject({
        code: ErrorCode.LocalWrite,
        message: `cannot write ${results}: the disk is full (ENOSPC)`,
      });
      expect(failureOf(error).lines[0]).toBe(
        `gwrun: cannot write ${results}: the disk is full (ENOSPC)`,
      );
      expect(readFileSync(results, "utf8")).toBe(before);
      expect(readdirSync(rig.outputDir).filter((name) => name.endsWith(".partial"))).toEqual([]);

      // A folder turned read-only refuses the gallery as it is opened, after results.jsonl.
      const readOnly = new FailingWrites({ code: "EROFS", only: /index\.html/ }, rig.files);
      await expect(writeReport(rig.store, run, "folder", readOnly)).rejects.toMatchObject({
        code: ErrorCode.LocalWrite,
        message: `cannot write ${path.join(rig.outputDir, "index.html")}: the folder cannot be written (EROFS)`,
      });
      expect(readFileSync(results, "utf8")).toBe(before);
      expect(readdirSync(rig.outputDir).filter((name) => name.endsWith(".partial"))).toEqual([]);
    });
  });
});

describe("a state database whose disk fills, on every machine", () => {
  it("a full disk under the database stops the run with its located error and exit 5; nothing is submitted that it could not record", async () => {
    const dbFile = path.join(tempDir(), "state.db");
    const disk = sqliteDisk();
    await withEngine(
      { latencySeconds: { image: 10 } },
      PACED,
      async (rig) => {
        const running = rig.engine().run();
        // The first task is submitted and recorded; the next waits its turn at the pace.
        await rig.until(async () => (await rig.tasks()).some((task) => task.task_id !== null));
        disk.fill();
        const error = await rig.finish(running).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        disk.free();

        expect(error).toBeInstanceOf(GwError);
        expect(error).toMatchObject({
          code: ErrorCode.StoreUnusable,
          message: `the disk under the state database ${dbFile} is full (SQLITE_FULL)`,
          hint: "free space there, or put the database elsewhere with --db FILE",
        });
        const states = (await rig.tasks()).map((task) => task.state).sort();
        expect(states).toEqual(["pending", "pending", "submitted"]);
        expect(rig.sim.counters().submits.accepted).toBe(1);
        expect(rig.events).toContainEqual(
          expect.objectContaining({ type: "run:stopping", reason: "failed" }),
        );
        // What `gwrun run` ends with for it: exit 5, the file and what to do, no stack trace.
        const ended = failureOf(error);
        expect(ended.exit).toBe(ExitCode.Store);
        expect(ended.lines).toEqual([
          `gwrun: the disk under the state database ${dbFile} is full (SQLITE_FULL)`,
          "  free space there, or put the database elsewhere with --db FILE",
        ]);
      },
      { dbFile, storeOptions: disk },
    );
    expect(existsSync(dbFile)).toBe(true);
  });

  it("a database whose disk turns read-only ends the run with exit 5, naming the file and what to do", async () => {
    const dbFile = path.join(tempDir(), "state.db");
    const disk = sqliteDisk(Number.POSITIVE_INFINITY, "SQLITE_READONLY");
    await withEngine(
      {},
      stillsJobs(2),
      async (rig) => {
        const recorded = disk.writes();
        disk.fill();
        const error = await rig.finish(rig.engine().run()).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(disk.writes()).toBe(recorded);
        expect(failureOf(error)).toEqual({
          exit: ExitCode.Store,
          lines: [
            `gwrun: the state database ${dbFile} cannot be written (read-only, or not allowed) (SQLITE_READONLY)`,
            "  make the file and its folder writable, or use --db FILE elsewhere",
          ],
        });
        // Nothing is sent that the store could not record first.
        expect(rig.sim.counters().submits.accepted).toBe(0);
        expect((await rig.tasks()).map((task) => task.state)).toEqual(["pending", "pending"]);
      },
      { dbFile, storeOptions: disk },
    );
  });
});
