import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { EngineEvent, JobGroup } from "../../../src/engine/index.js";
import { type EngineRig, withEngine } from "../../helpers/engine.js";
import { play } from "../../helpers/ui-script.js";

/**
 * What `run:started` tells the reporters, in virtual time: every task in the stage the run
 * takes it on in, so the screen starts from the counts the run will actually have.
 */

const LATENCY = { latencySeconds: { image: 10, video: 20 } };

/** Two pictures and a clip made from each. */
const PIPELINE = `poll: { first_after: 5s, every: 2s }
jobs:
  - { id: shots, model: acme-image-2, prompt: "A mug on a table", size: "256x256", repeat: 2 }
  - { id: clip, model: acme-video-2.3-Fast, from: shots, first_frame_image: "{{input.url}}", prompt: "[推进] in" }
`;

/** Runs an engine to its end; returns the events it told. */
async function runOnce(rig: EngineRig, options: Parameters<EngineRig["engine"]>[0] = {}) {
  const from = rig.events.length;
  const running = rig.engine(options).run();
  let over = false;
  const end = () => {
    over = true;
  };
  running.then(end, end);
  // Taking on done tasks reads their files, which takes no virtual time: let it finish first.
  while (!over && !rig.events.slice(from).some((event) => event.type === "run:started"))
    await new Promise((resolve) => setImmediate(resolve));
  const result = await rig.finish(running);
  return { result, events: rig.events.slice(from) };
}

function startOf(events: readonly EngineEvent[]) {
  const first = events[0];
  if (first?.type !== "run:started") throw new Error(`the run began with ${first?.type}`);
  return first;
}

const byJob = (groups: readonly JobGroup[]) =>
  Object.fromEntries(groups.map((group) => [group.job, group]));

describe("a run's start", () => {
  it("a dependant job's row has its family from the start, before its tasks are added", async () => {
    await withEngine(LATENCY, PIPELINE, async (rig) => {
      const { events } = await runOnce(rig);
      const started = startOf(events);
      expect(started.jobs).toBe(2);
      expect(byJob(started.groups).clip).toMatchObject({
        family: "video-1",
        lane: "video",
        tasks: 0,
      });
      const { view } = play(events);
      expect(view.groups.map((g) => [g.job, g.family, g.done, g.tasks])).toEqual([
        ["shots", "image-a", 2, 2],
        ["clip", "video-1", 2, 2],
      ]);
    });
  });

  it("a first run counts the dependants it will make from the start: its total never moves", async () => {
    await withEngine(LATENCY, PIPELINE, async (rig) => {
      const { events } = await runOnce(rig);
      const started = startOf(events);
      expect(started).toMatchObject({ tasks: 2, awaiting: 2 });
      expect(byJob(started.groups).clip).toMatchObject({ tasks: 0, awaiting: 2 });
      // Event by event, the screen's total is the plan's four; the clips were queued all along.
      const totals = new Set<number>();
      for (let n = 1; n <= events.length; n++) totals.add(play(events.slice(0, n)).view.total);
      expect([...totals]).toEqual([4]);
      expect(play(events).view).toMatchObject({ total: 4, stages: { done: 4, queued: 0 } });
    });
  });

  it("with --force the tasks to redo start queued, not done", async () => {
    await withEngine(LATENCY, PIPELINE, async (rig) => {
      await runOnce(rig);
      const { result, events } = await runOnce(rig, { force: true });
      const started = startOf(events);
      expect(started.alreadyDone).toBe(0);
      expect(byJob(started.groups).shots?.stages).toMatchObject({ queued: 2, done: 0 });
      expect(byJob(started.groups).clip?.stages).toMatchObject({ queued: 2, done: 0 });
      const { view } = play(events);
      expect(view.stages).toMatchObject({ done: result.counts.done, queued: 0 });
      expect(view.total).toBe(4);
    });
  });

  it("a new run over done work counts all of it done from the start, dependants included", async () => {
    await withEngine(LATENCY, PIPELINE, async (rig) => {
      await runOnce(rig);
      const { result, events } = await runOnce(rig, { runId: await rig.newRun() });
      const started = startOf(events);
      expect(result.counts).toEqual({ done: 4 });
      expect(started).toMatchObject({ tasks: 4, alreadyDone: 4 });
      expect(play(events).view).toMatchObject({ total: 4, fraction: 1 });
    });
  });

  it("a resumed run starts from where each task really is, and tells nothing before its start", async () => {
    await withEngine(LATENCY, PIPELINE, async (rig) => {
      await runOnce(rig);
      const [gone, unchecked] = (await rig.tasks()).filter((task) => task.job_id === "shots");
      if (gone === undefined || unchecked === undefined) throw new Error("two shots expected");
      // One picture deleted (its link still works), one left downloaded but not yet checked.
      for (const output of await rig.store.outputsOf(gone.key))
        rmSync(output.path as string, { force: true });
      rig.store.db.prepare("UPDATE jobs SET state = 'downloaded' WHERE key = ?").run(unchecked.key);

      const { result, events } = await runOnce(rig, { postprocess: rig.postProcessor() });

      const started = startOf(events);
      expect(started.alreadyDone).toBe(2);
      expect(byJob(started.groups).shots?.stages).toMatchObject({ downloading: 2, done: 0 });
      expect(byJob(started.groups).clip?.stages).toMatchObject({ done: 2 });
      expect(result.counts).toEqual({ done: 4 });
      expect(play(events).view).toMatchObject({ total: 4, stages: { done: 4, downloading: 0 } });
    });
  });
});
