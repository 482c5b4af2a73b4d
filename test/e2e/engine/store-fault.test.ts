import path from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import type { Store } from "../../../src/store/index.js";
import { stillsJobs, withEngine } from "../../helpers/engine.js";
import { tempDir } from "../../helpers/manifest.js";
import { fill, mountTiny, unfill, unmount } from "../../helpers/tmpfs.js";

/**
 * The state database failing under a run. Nothing is sent that the store
 * could not record, no task is left claimed for a submit that never left, and what the
 * gateway answered that could not be recorded is named.
 */

const PACED = `limits: { submit_rate: 1/s }
poll: { first_after: 5s, every: 2s }
${stillsJobs(3)}`;

describe("a state database that fails mid-run", () => {
  it("a full disk under the database stops the run with its located error; nothing is submitted that it could not record", async (context) => {
    const dir = tempDir();
    if (!mountTiny(dir, "2m")) {
      context.skip();
      return;
    }
    const dbFile = path.join(dir, "state.db");
    try {
      await withEngine(
        { latencySeconds: { image: 10 } },
        PACED,
        async (rig) => {
          const running = rig.engine().run();
          // The first task is submitted and recorded; the next waits its turn at the pace.
          await rig.until(async () => (await rig.tasks()).some((task) => task.task_id !== null));
          fill(dir);
          const error = await rig.finish(running).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          unfill(dir);

          expect(error).toBeInstanceOf(GwError);
          expect(error).toMatchObject({
            code: ErrorCode.StoreUnusable,
            message: `the disk under the state database ${dbFile} is full (SQLITE_FULL)`,
            hint: "free space there, or put the database elsewhere with --db FILE",
          });
          const states = (await rig.tasks()).map((task) => task.state).sort();
          expect(states).toEqual(["pending", "pending", "submitted"]);
          // One task paid for, and it is the one recorded.
          expect(rig.sim.counters().submits.accepted).toBe(1);
          expect(rig.events).toContainEqual(
            expect.objectContaining({ type: "run:stopping", reason: "failed" }),
          );
        },
        { dbFile },
      );
    } finally {
      unmount(dir);
    }
  });

  it("a receipt the store cannot record is reported with its task id, not lost in silence", async () => {
    await withEngine({ latencySeconds: { image: 10 } }, stillsJobs(1), async (rig) => {
      const full = new GwError(
        ErrorCode.StoreUnusable,
        "the disk under the state database state.db is full (SQLITE_FULL)",
        { hint: "free space there, or put the database elsewhere with --db FILE" },
      );
      const failing: Store = new Proxy(rig.store, {
        get(target, property) {
          if (property === "recordReceipts") return async () => Promise.reject(full);
          return Reflect.get(target, property, target);
        },
      });
      const error = await rig.finish(rig.engine({ store: failing }).run()).then(
        () => undefined,
        (caught: unknown) => caught,
      );

      expect(error).toMatchObject({ code: ErrorCode.StoreUnusable, hint: full.hint });
      expect((error as Error).message).toMatch(
        /^the disk under the state database state\.db is full \(SQLITE_FULL\); answers it could not record \(note them before running again\): stills is task task_\S+$/,
      );
      expect(rig.sim.counters().submits.accepted).toBe(1);
      // Claimed before it was sent, as it must be: the next run treats it as an unknown submit.
      expect((await rig.tasks()).map((task) => task.state)).toEqual(["submitting"]);
    });
  });

  it("a poll round the store refuses stops the run with the store's error, not a gateway retry", async () => {
    await withEngine({ latencySeconds: { image: 1 } }, stillsJobs(1), async (rig) => {
      // A statement that fails every time it runs, as a value out of a column's range does.
      const failing: Store = new Proxy(rig.store, {
        get(target, property) {
          if (property === "recordPollRound")
            return async () => Promise.reject(new Error("integer out of range"));
          return Reflect.get(target, property, target);
        },
      });
      const error = await rig.finish(rig.engine({ store: failing }).run()).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        code: ErrorCode.StoreUnusable,
        message: "the store could not record a poll round: integer out of range",
      });
      expect(rig.events).toContainEqual(
        expect.objectContaining({ type: "run:stopping", reason: "failed" }),
      );
      expect(rig.events.filter((event) => event.type === "gateway:retry")).toEqual([]);
      // Paid once, and its task id kept: the next run polls it.
      expect(rig.sim.counters().submits.accepted).toBe(1);
      const [task] = await rig.tasks();
      expect(task).toMatchObject({ state: "submitted" });
      expect(task?.task_id).not.toBeNull();
    });
  });
});
