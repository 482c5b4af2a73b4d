import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import type { EngineEvent } from "../../../src/engine/index.js";
import { GatewayError } from "../../../src/gateway/index.js";
import type { Store } from "../../../src/store/index.js";
import { type EngineRig, stateCounts, withEngine } from "../../helpers/engine.js";

/**
 * In the engine, on virtual time against the simulator: a judge asked
 * about each output on each endpoint, what it says acted on, its calls retried, paid once.
 */

const MESSAGES = `gateway: { base_url: sim, messages_version: { header: acme-version, value: "2023-06-01" } }`;

function judged(options: {
  endpoint: string;
  model?: string;
  pass?: string;
  onFail?: "report" | "retry";
  count?: number;
  extra?: string;
  /** The pictures' model and size (a family that takes a seed: acme2.7-image-pro, 1K). */
  seeded?: boolean;
}): string {
  const count = options.count ?? 3;
  return `${MESSAGES}
poll: { first_after: 2s, every: 2s }
${options.extra ?? ""}
jobs:
  - id: stills
    model: ${options.seeded === true ? "acme2.7-image-pro" : "acme-image-2"}
    matrix: { take: [${Array.from({ length: count }, (_, i) => i + 1).join(", ")}] }
    prompt: "A ceramic mug, take {{take}}"
    size: ${options.seeded === true ? "1K" : '"256x256"'}
    checks:
      judge:
        model: ${options.model ?? "acme-5"}
        endpoint: ${options.endpoint}
        ask: "Is this {{prompt}}?"
        pass: ${options.pass ?? '{ starts_with: "yes" }'}
        on_fail: ${options.onFail ?? "report"}
`;
}

function verdicts(events: readonly EngineEvent[]) {
  return events.flatMap((event) => (event.type === "task:judged" ? [event] : []));
}

async function judgements(rig: EngineRig) {
  const tasks = await rig.tasks();
  const rows = await Promise.all(tasks.map((task) => rig.store.judgementsOf(task.key)));
  return rows.flat();
}

describe("a judge in the engine", () => {
  it.each([
    ["responses", "acme-5"],
    ["messages", "acme-5"],
    ["native", "acme-2.5-flash"],
  ])("a judge on %s gets every picture in its own image form and its verdicts are recorded", async (endpoint, model) => {
    await withEngine({ judgeNoShare: 0 }, judged({ endpoint, model }), async (rig) => {
      const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
      expect(result).toMatchObject({ end: "done", counts: { done: 3 } });
      const rows = await judgements(rig);
      expect(rows.map((row) => [row.state, row.verdict, row.model])).toEqual(
        Array.from({ length: 3 }, () => ["judged", "pass", model]),
      );
      // The simulator read each picture: its answer names the prompt it drew it from (a link),
      // or at least passed it (native's inline bytes).
      if (endpoint !== "native")
        for (const row of rows) expect(row.reason).toContain("A ceramic mug, take");
      expect(rig.sim.counters().text.calls).toBe(3);
    });
  });

  it("an answer the judge's pass rule cannot read is undecided: the task is not passed, and no new take is made", async () => {
    const manifest = judged({ endpoint: "responses", onFail: "retry" });
    // The model declines every call: "I'm sorry, but I can't help with that request."
    await withEngine({ judgeNoShare: 0, faults: { textRefusalRate: 1 } }, manifest, async (rig) => {
      const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
      expect(result.end).toBe("failed");
      const tasks = await rig.tasks();
      expect(stateCounts(tasks)).toEqual({ failed: 3 });
      expect(tasks[0]?.reason).toMatch(/^check failed: judge undecided: cannot read "I'm sorry/);
      expect((await judgements(rig)).map((row) => row.verdict)).toEqual([
        "undecided",
        "undecided",
        "undecided",
      ]);
      expect(verdicts(rig.events).every((event) => event.retake === null)).toBe(true);
    });
  });

  it('a judge\'s "no" with on_fail: retry makes a new take with a new seed; the rejected take stays done, on disk, with its verdict', async () => {
    const manifest = judged({
      endpoint: "responses",
      onFail: "retry",
      count: 6,
      seeded: true,
      extra: "retry: { attempts: 4 }",
    });
    await withEngine({ judgeNoShare: 0.5, mediaVariants: undefined }, manifest, async (rig) => {
      const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
      const tasks = await rig.tasks();
      const retakes = tasks.filter((task) => task.take > 1);
      expect(retakes.length).toBeGreaterThan(0);
      for (const take of retakes) {
        const first = tasks.find((task) => task.label === take.label.replace(/-t\d+$/, ""));
        expect(JSON.parse(take.request).seed).not.toBe(JSON.parse(first?.request ?? "{}").seed);
      }
      const rows = await judgements(rig);
      const rejected = rows.filter((row) => row.verdict === "fail");
      expect(rejected.length).toBeGreaterThan(0);
      for (const row of rejected) {
        const task = tasks.find((each) => each.key === row.job_key);
        expect(task?.state === "done" || task?.take === 4).toBe(true);
        const [output] = await rig.store.outputsOf(row.job_key);
        expect(output?.path !== null && existsSync(output?.path ?? "")).toBe(true);
      }
      // Every label ends judged: passed, or failed after its last take.
      expect(result.end === "done" || tasks.some((task) => task.take === 4)).toBe(true);
      expect(verdicts(rig.events).filter((event) => event.retake !== null)).toHaveLength(
        retakes.length,
      );
    });
  });

  it("a judge's call answered 500 is retried and the verdict recorded", async () => {
    // Ten judge calls, so that at least one meets a 500 however the requests fall.
    const manifest = judged({
      endpoint: "responses",
      count: 10,
      extra: "retry: { attempts: 10, min_delay: 1s, max_delay: 2s }",
    });
    await withEngine(
      { judgeNoShare: 0, faults: { serverErrorRate: 0.4 } },
      manifest,
      async (rig) => {
        const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
        expect(result).toMatchObject({ end: "done", counts: { done: 10 } });
        const retried = rig.events.filter(
          (event) => event.type === "gateway:retry" && event.what.startsWith("judge "),
        );
        expect(retried.length).toBeGreaterThan(0);
        expect((await judgements(rig)).every((row) => row.verdict === "pass")).toBe(true);
      },
    );
  });

  it("a judge that still fails after its retries leaves the picture downloaded, paid once; the resumed run asks the judge again", async () => {
    const manifest = judged({
      endpoint: "responses",
      count: 1,
      extra: "retry: { attempts: 2, min_delay: 1s, max_delay: 1s }",
    });
    await withEngine({ judgeNoShare: 0 }, manifest, async (rig) => {
      const down = new Proxy(rig.client, {
        get: (target, property) =>
          property === "callText"
            ? () =>
                Promise.reject(
                  new GatewayError(ErrorCode.HttpServer, "HTTP 503 unavailable", {
                    status: 503,
                    retryable: true,
                  }),
                )
            : (Reflect.get(target, property, target) as unknown),
      });
      const first = await rig.finish(
        rig.engine({ client: down, postprocess: rig.postProcessor() }).run(),
      );
      expect(first).toMatchObject({ end: "failed", counts: { downloaded: 1 } });
      const stop = rig.events.find((event) => event.type === "run:stopping");
      expect(stop?.type === "run:stopping" ? stop.message : "").toMatch(
        /the judge could not be asked: HTTP 503 unavailable; gwrun resume asks the judge again$/,
      );
      expect(
        rig.events.filter(
          (event) => event.type === "gateway:retry" && event.what.startsWith("judge"),
        ),
      ).toHaveLength(1);

      const resumed = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
      expect(resumed).toMatchObject({ end: "done", counts: { done: 1 } });
      expect(rig.sim.counters().submits.accepted).toBe(1);
      expect((await judgements(rig)).map((row) => row.verdict)).toEqual(["pass"]);
    });
  });

  it("a run stopped between the judge's answer and its recording records that answer on the next run without asking again", async () => {
    await withEngine(
      { judgeNoShare: 0 },
      judged({ endpoint: "responses", count: 2 }),
      async (rig) => {
        const failing: Store = Object.create(rig.store) as Store;
        failing.recordJudgement = () =>
          Promise.reject(
            new GwError(ErrorCode.StoreUnusable, "the state database cannot be written"),
          );
        const engine = rig.engine({ store: failing, postprocess: rig.postProcessor() });
        await expect(rig.finish(engine.run())).rejects.toThrow(/cannot be written/);
        const asked = rig.sim.counters().text.calls;
        expect((await judgements(rig)).every((row) => row.state === "asking")).toBe(true);
        // The answer whose recording failed is on disk. A call still in flight when the store
        // failed was abandoned with the run, as at Ctrl-C, so it kept nothing.
        const kept = readdirSync(path.join(rig.outputDir, ".judge")).length;
        expect(kept).toBeGreaterThan(0);
        expect(kept).toBeLessThanOrEqual(asked);

        const resumed = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
        expect(resumed).toMatchObject({ end: "done", counts: { done: 2 } });
        expect((await judgements(rig)).map((row) => row.state)).toEqual(["judged", "judged"]);
        // What was kept is recorded from its file; only the outputs without an answer on disk
        // are asked now.
        expect(rig.sim.counters().text.calls).toBe(asked + (2 - kept));
      },
    );
  });

  it("the budget stops new takes: a rejected picture is not made again past max_cost", async () => {
    const manifest = judged({
      endpoint: "responses",
      onFail: "retry",
      count: 4,
      extra:
        "limits: { max_cost: 0.17 }\nprices: { acme-image-2: 0.04, acme-5: { per_1k_input: 0.01, per_1k_output: 0.01 } }",
    });
    await withEngine(
      {
        judgeNoShare: 0.5,
        mediaVariants: undefined,
        prices: { "acme-image-2": { per: "task", amount: 0.04 } },
      },
      manifest,
      async (rig) => {
        const result = await rig.finish(rig.engine({ postprocess: rig.postProcessor() }).run());
        const tasks = await rig.tasks();
        const rejected = (await judgements(rig)).filter((row) => row.verdict === "fail");
        expect(rejected.length).toBeGreaterThan(0);
        expect(result.end).toBe("budget");
        // The new takes wait unsent; what was paid stays within the budget.
        expect(
          tasks.filter((task) => task.take > 1 && task.state === "pending").length,
        ).toBeGreaterThan(0);
        expect(result.spent).toBeLessThanOrEqual(0.17);
      },
    );
  });
});
