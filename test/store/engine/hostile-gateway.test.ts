import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../src/engine/index.js";
import { stillsJobs, withEngine } from "../../helpers/engine.js";

/**
 * A gateway that answers garbage, never finishes, or floods its messages. The run
 * ends on its own, in virtual time; every task says what the gateway did.
 */

const TEN_SECONDS = { latencySeconds: { image: 10 } };
const POLL = "poll: { first_after: 5s, every: 2s }";

function images(count: number, poll = POLL): string {
  return `${poll}
retry: { attempts: 2, min_delay: 1s, max_delay: 2s }
${stillsJobs(count)}`;
}

describe("a hostile gateway, in virtual time", () => {
  it.each([
    ["an HTML 502 page", { htmlPollRate: 1 }, "502 Bad Gateway"],
    ["a body that is not JSON", { nonJsonPollRate: 1 }, "upstream busy"],
  ])("gives up on tasks whose poll answers are %s", async (_, faults, sent) => {
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
      for (const task of await rig.tasks()) {
        expect(task.reason).toMatch(/^no result after 6 unreadable poll answers; the gateway/);
        expect(task.reason).toContain(sent);
        expect(task.task_id).not.toBeNull();
      }
      // Backed off: far fewer rounds than polling every 2 s would have made.
      expect(rig.clock.now() - (await rig.tasks())[0]!.submitted_at!).toBeGreaterThan(60_000);
    });
  });

  it("fails a task stuck in a status the spec does not name at its deadline", async () => {
    const poll = "poll: { first_after: 5s, every: 2s, give_up_after: 3m }";
    await withEngine(
      { ...TEN_SECONDS, faults: { oddStatusRate: 1 } },
      images(2, poll),
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
        for (const task of await rig.tasks())
          expect(task.reason).toBe(
            'no result after 3 min (the gateway still says "queued_upstream")',
          );
      },
    );
  });

  it("gives up on a task that never finishes after 15 minutes by default", async () => {
    await withEngine({ ...TEN_SECONDS, faults: { oddStatusRate: 1 } }, images(1), async (rig) => {
      const started = rig.clock.now();
      let result: RunResult | undefined;
      const running = rig.engine().run();
      void running.then((ended) => {
        result = ended;
      });
      // Longer than the rig's usual limit: the default deadline is generous.
      await rig.until(() => result !== undefined, 20 * 60_000);

      expect(result).toMatchObject({ end: "failed", counts: { failed: 1 } });
      const [task] = await rig.tasks();
      expect(task?.reason).toMatch(/^no result after 15 min/);
      expect(rig.clock.now() - started).toBeLessThan(16 * 60_000);
    });
  });

  it("cuts a gateway's multi-megabyte failure message to a few KB", async () => {
    const faults = { taskFailureRate: 1, hugeErrorRate: 1 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
      for (const task of await rig.tasks()) {
        expect(task.reason?.length).toBeLessThan(4_000);
        expect(task.reason).toMatch(/… \(\d+ bytes cut\)$/);
      }
      const failed = rig.events.filter((event) => event.type === "task:failed");
      expect(JSON.stringify(failed).length).toBeLessThan(10_000);
    });
  });

  it("stores and reports a failure message without its escape sequences", async () => {
    const faults = { taskFailureRate: 1, escapeErrorRate: 1 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
      const controls = /[\u0000-\u001f\u007f-\u009f]/;
      for (const task of await rig.tasks()) {
        expect(task.reason).not.toMatch(controls);
        // Markup stays text: the gallery escapes it.
        expect(task.reason).toMatch(/[a-z] +details <script>alert\(1\)<\/script>$/);
        // The title the escape would have set is gone with it.
        expect(task.reason).not.toContain("owned");
      }
      const failed = rig.events.filter((event) => event.type === "task:failed");
      expect(failed).toHaveLength(2);
      expect(JSON.stringify(failed)).not.toMatch(/\\u001b|\\u0007/);
    });
  });

  it("downloads only the outputs promised when a result lists 500 links", async () => {
    await withEngine({ ...TEN_SECONDS, faults: { surplusLinkRate: 1 } }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "done", counts: { done: 2 } });
      expect(rig.sim.counters().downloads.served).toBe(2);
      for (const task of await rig.tasks())
        expect(await rig.store.outputsOf(task.key)).toHaveLength(1);
      const completed = rig.events.filter((event) => event.type === "task:completed");
      expect(completed.map((event) => ({ ...event }))).toMatchObject([
        { outputs: 1, surplus: 499 },
        { outputs: 1, surplus: 499 },
      ]);
    });
  });

  it("fails the second of two submits answered with one task id, naming the id and the other task", async () => {
    const faults = { duplicateTaskIdRate: 1 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { done: 1, failed: 1 } });
      const tasks = await rig.tasks();
      const done = tasks.find((task) => task.state === "done");
      const failed = tasks.find((task) => task.state === "failed");
      expect(failed?.reason).toBe(
        `the gateway answered with task id ${done?.task_id}, which it gave to ${done?.label} already: one result is not counted as two`,
      );
      // One file, for the task that holds the id.
      expect(await rig.store.outputsOf(failed?.key as string)).toEqual([]);
      expect(rig.sim.counters().downloads.served).toBe(1);
      expect(rig.events).toContainEqual(
        expect.objectContaining({ type: "task:failed", label: failed?.label }),
      );
    });
  });

  it("polls a completed task whose result lists no output yet again, and downloads it once published", async () => {
    const faults = { unpublishedResultPolls: 2 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "done", counts: { done: 2 } });
      expect(rig.sim.counters().errors.unpublished_result).toBe(4);
    });
  });

  it("fails a completed task whose result never lists an output, after polling it 3 times more", async () => {
    const faults = { unpublishedResultPolls: 100 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
      for (const task of await rig.tasks())
        expect(task.reason).toBe(
          "the task completed but its result held no output URL in 4 answers",
        );
      expect(rig.sim.counters().errors.unpublished_result).toBe(8);
    });
  });

  it("tries a link past its expiry once before calling the task expired", async () => {
    await withEngine({ ...TEN_SECONDS, faults: { expiredLinkRate: 1 } }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { expired: 2 } });
      expect(rig.sim.counters().downloads.expired).toBe(2);
      for (const task of await rig.tasks())
        expect(task.reason).toMatch(/^the result link has expired or is gone \(HTTP 403/);
    });
  });

  it("a text stream broken off by an error event is stored and reported without its escapes or the key", async () => {
    const manifest = `retry: { attempts: 2, min_delay: 1s, max_delay: 2s }
jobs:
  - { id: notes, endpoint: chat, model: acme-5, messages: [{ role: user, content: a caption }] }
`;
    await withEngine({ faults: { streamErrorRate: 1 } }, manifest, async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 1 } });
      expect(rig.sim.counters().errors.stream_error).toBeGreaterThan(0);
      const [task] = await rig.tasks();
      expect(task?.reason).toMatch(/stream reported upstream_error: stream broke/);
      expect(task?.reason).toContain("Bearer ***");
      expect(task?.reason).toMatch(/details <script>alert\(1\)<\/script>$/);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
      expect(task?.reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      const shown = JSON.stringify(rig.events);
      expect(shown).not.toContain("test-key");
      expect(shown).not.toMatch(/\\u001b|\\u0007/);
    });
  });

  it("masks the API key a failed task's message echoes, in the store and the events", async () => {
    const faults = { taskFailureRate: 1, echoKeyRate: 1 };
    await withEngine({ ...TEN_SECONDS, faults }, images(2), async (rig) => {
      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "failed", counts: { failed: 2 } });
      for (const task of await rig.tasks())
        expect(task.reason).toMatch(/Authorization: Bearer \*\*\*; key \*\*\*\)$/);
      const logged = rig.store.db
        .prepare("SELECT group_concat(data, ' ') AS data FROM events")
        .get();
      expect(JSON.stringify(logged)).toContain("Bearer ***");
      expect(JSON.stringify(logged)).not.toContain("test-key");
      expect(JSON.stringify(rig.events)).not.toContain("test-key");
    });
  });
});
