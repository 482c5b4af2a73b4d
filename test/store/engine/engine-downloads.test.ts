import { describe, expect, it } from "vitest";
import { CLAIM_OWNER } from "../../../src/core/process.js";
import { outputLinks } from "../../../src/gateway/index.js";
import type { TaskRow } from "../../../src/store/index.js";
import { type EngineRig, requestHash, stillsJobs, withEngine } from "../../helpers/engine.js";
import { claimOne } from "../../helpers/store.js";

/**
 * The engine in virtual time against the in-process simulator: what happens between a task
 * completing and its being done — the download order, dead links, and failed checks.
 */

const HOUR = 3_600_000;

/** `count` family A images of 256x256, every request distinct. */
function images(count: number, settings: string): string {
  return `${settings}
poll: { first_after: 15s, every: 2s }
${stillsJobs(count)}`;
}

/**
 * Records `tasks` completed, as an earlier process left them: each submitted to the
 * simulator for real, then recorded with its link expiring at the time given.
 */
async function recordCompleted(rig: EngineRig, tasks: [TaskRow, number][]): Promise<void> {
  const { store, client, clock } = rig;
  for (const [task] of tasks) {
    const claimed = await claimOne(store, task, CLAIM_OWNER, clock.now());
    if (claimed === undefined) throw new Error(`${task.label} could not be claimed`);
    const receipt = await client.submit(task.endpoint, JSON.parse(task.request));
    const status = receipt.status === "processing" ? "processing" : "submitted";
    const { taskId } = receipt;
    await store.recordReceipts(
      [{ task: claimed.task, taskId, status, nextPollAt: clock.now(), unknownSubmits: 0 }],
      clock.now(),
    );
  }
  await rig.advanceTo(clock.now() + 60_000);
  for (const [task, expiresAt] of tasks) {
    const held = await store.task(task.key);
    const record = await client.getTask(held?.task_id ?? "");
    const links = outputLinks(record).map((link) => ({ ...link, expiresAt }));
    const outcome = { kind: "completed" as const, links, cost: record.cost };
    await store.recordPollRound([{ task: held as TaskRow, outcome }], clock.now());
  }
}

describe("the engine's downloads, in virtual time", () => {
  it("downloads the outputs whose links expire first first", async () => {
    await withEngine({}, images(4, "limits: { downloads: 1 }"), async (rig) => {
      const [t1, t2, t3, t4] = await rig.tasks();
      if (t1 === undefined || t2 === undefined || t3 === undefined || t4 === undefined)
        throw new Error("four tasks expected");
      const now = rig.clock.now();
      // Taken on in this order; the first finds the one download slot free.
      await recordCompleted(rig, [
        [t1, now + 4 * HOUR],
        [t2, now + 3 * HOUR],
        [t3, now + 1 * HOUR],
        [t4, now + 2 * HOUR],
      ]);
      const accepted = rig.sim.counters().submits.accepted;

      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "done", counts: { done: 4 } });
      const order = rig.events.flatMap((event) =>
        event.type === "output:downloaded" ? [event.label] : [],
      );
      expect(order).toEqual([t1.label, t3.label, t4.label, t2.label]);
      expect(rig.sim.counters().submits.accepted).toBe(accepted);
    });
  });

  it("ends a task expired, naming its link, when the link dies before the download", async () => {
    // The task completes at 10 s; its link works 2 s; the first poll comes at 15 s.
    await withEngine(
      { latencySeconds: { image: 10 }, linkTtlSeconds: 2 },
      images(1, "limits: {}"),
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        expect(result).toMatchObject({ end: "failed", counts: { expired: 1 } });
        const [task] = await rig.tasks();
        expect(task).toMatchObject({ state: "expired", reason: expect.stringMatching(/link/) });
        const outputs = await rig.store.outputsOf(task?.key ?? "");
        expect(outputs.map((output) => output.state)).toEqual(["expired"]);
        expect(rig.events).toContainEqual(
          expect.objectContaining({ type: "task:failed", state: "expired" }),
        );
        expect(rig.sim.counters().downloads.served).toBe(0);
      },
    );
  });

  it("with checks on_fail: retry, submits a task whose check fails again, retry.attempts times in all", async () => {
    // Every picture comes back half the size asked for.
    await withEngine(
      { latencySeconds: { image: 10 }, faults: { wrongSizeRate: 1 } },
      images(1, "checks: { on_fail: retry }\nretry: { attempts: 3, min_delay: 1s, max_delay: 2s }"),
      async (rig) => {
        const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());

        expect(result).toMatchObject({ end: "failed", counts: { failed: 1 } });
        const [task] = await rig.tasks();
        expect(task).toMatchObject({
          state: "failed",
          attempts: 3,
          reason: expect.stringMatching(/^check failed: .*128x128, expected 256x256/),
        });
        const { submits } = rig.sim.counters();
        expect(submits.byRequest[requestHash(task as TaskRow)]).toBe(3);
        expect(submits.accepted).toBe(3);
        expect(rig.events.filter((event) => event.type === "output:checked")).toHaveLength(3);
      },
    );
  });

  it("a picture is held to the picture cap, far below a clip's", async () => {
    await withEngine({ latencySeconds: { image: 10 } }, images(1, "limits: {}"), async (rig) => {
      const caps = { image: 100, video: 64 * 1024 * 1024 };
      const result = await rig.finish(rig.engine({ maxDownloadBytes: caps }).run());

      expect(result.end).not.toBe("done");
      const [task] = await rig.tasks();
      expect(task?.state).not.toBe("done");
      expect(task?.reason).toMatch(/100-byte cap/);
    });
  });
});
