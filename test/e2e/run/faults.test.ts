import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256 } from "../../../src/core/hash.js";
import { hashFile } from "../../../src/core/output-files.js";
import { seededRandom } from "../../../src/core/random.js";
import { SUBMIT_CONCURRENCY } from "../../../src/engine/index.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";
import { mixedJobs } from "../../helpers/run-manifests.js";
import { until } from "../../helpers/until.js";

/** How many tasks the simulator created for each job's request. */
async function acceptedPerJob(scope: RunScope) {
  const byRequest = scope.sim.counters().submits.byRequest;
  return (await scope.tasks()).map((job) => ({
    job,
    accepted: byRequest[sha256(`${job.endpoint}\n${canonicalJson(JSON.parse(job.request))}`)] ?? 0,
  }));
}

async function expectWholeOutputs(scope: RunScope): Promise<void> {
  expect(filesBelow(scope.outputDir).filter((file) => file.endsWith(".part"))).toEqual([]);
  for (const job of await scope.tasks()) {
    for (const output of job.outputs) {
      if (output.state === "downloaded")
        expect(await hashFile(output.path ?? "")).toBe(output.sha256);
    }
  }
}

describe("crash safety", () => {
  it("survives SIGKILL at five random moments: no task paid twice once recorded, no partial file", async () => {
    await withRun({ seed: "crash" }, async (scope) => {
      const settings = fastSettings(scope.outputDir).replace(
        "submit_rate: 500/s",
        "submit_rate: 120/s",
      );
      const manifest = scope.write("crash.yaml", `${settings}name: crash\n${mixedJobs(180, 20)}`);
      const moments = seededRandom("kill moments");
      let kills = 0;
      for (let round = 0; round < 5; round++) {
        const run = scope.spawn(["run", manifest]);
        await sleep(400 + moments.next() * 900);
        if (run.child.kill("SIGKILL")) kills += 1;
        await run.done;
        await expectWholeOutputs(scope);
      }
      expect(kills).toBeGreaterThanOrEqual(3);
      const final = await scope.gwrun(["run", manifest]).done;
      expect(final.code).toBe(0);
      await expectWholeOutputs(scope);
      let duplicates = 0;
      for (const { job, accepted } of await acceptedPerJob(scope)) {
        expect(job.state).toBe("done");
        expect(accepted).toBeGreaterThanOrEqual(1);
        // Only a submit whose answer a kill cut off is sent again, and it is counted.
        expect(accepted - 1).toBeLessThanOrEqual(job.unknown_submits);
        duplicates += accepted - 1;
      }
      expect(duplicates).toBeLessThanOrEqual(kills * SUBMIT_CONCURRENCY);
    });
  });

  it("stops on Ctrl-C with exit 130 and resumes without paying twice", async () => {
    await withRun({ seed: "interrupt" }, async (scope) => {
      const settings = fastSettings(scope.outputDir).replace(
        "submit_rate: 500/s",
        "submit_rate: 60/s",
      );
      const manifest = scope.write("stop.yaml", `${settings}name: stop\n${mixedJobs(100, 0)}`);
      const run = scope.spawn(["run", manifest]);
      // Interrupt once the run is under way (its Ctrl-C handling is set up by then), however
      // slowly a loaded machine starts it.
      await new Promise<void>((resolve) => {
        let seen = "";
        run.child.stderr?.on("data", (chunk: Buffer) => {
          seen += chunk.toString();
          if (/run \d+: \d+ jobs?, \d+ tasks/.test(seen)) resolve();
        });
      });
      // Mid-run: some tasks paid for, most still to send.
      await until(
        "the first tasks at the gateway",
        () => scope.sim.counters().submits.accepted >= 5,
      );
      run.child.kill("SIGINT");
      const stopped = await run.done;
      expect(stopped.code).toBe(130);
      expect(stopped.stderr).toMatch(/stopping: no new submits/);
      const states = new Set((await scope.tasks()).map((job) => job.state));
      expect(states.has("submitting")).toBe(false);
      const resumed = await scope.gwrun(["resume"]).done;
      expect(resumed.code).toBe(0);
      for (const { job, accepted } of await acceptedPerJob(scope)) {
        expect(job.state).toBe("done");
        expect(accepted).toBe(1);
      }
    });
  });

  it("never lets two processes on one database submit the same job", async () => {
    await withRun({ seed: "two" }, async (scope) => {
      const manifest = scope.write(
        "two.yaml",
        `${fastSettings(scope.outputDir)}name: two\n${mixedJobs(150, 0)}`,
      );
      const [a, b] = await Promise.all([
        scope.spawn(["run", manifest]).done,
        scope.spawn(["run", manifest]).done,
      ]);
      expect([a, b].map((r) => [r.code, r.code === 0 ? "" : r.stderr])).toEqual([
        [0, ""],
        [0, ""],
      ]);
      for (const { job, accepted } of await acceptedPerJob(scope)) {
        expect(job.state).toBe("done");
        expect(accepted).toBe(1);
      }
    });
  });
});

describe("faults", () => {
  it("survives 5xx, resets, failed tasks, truncated downloads, a rate limit and dead links; retry finishes", async () => {
    const faults = {
      serverErrorRate: 0.1,
      resetRate: 0.05,
      taskFailureRate: 0.05,
      truncateRate: 0.05,
      expiredLinkRate: 0.05,
    };
    await withRun(
      { seed: "faults", rateLimit: { perSecond: 150, burst: 20 }, faults },
      async (scope) => {
        const settings = fastSettings(scope.outputDir).replace(
          "submit_rate: 500/s",
          "submit_rate: 300/s",
        );
        const manifest = scope.write(
          "faults.yaml",
          `${settings}name: faults\n${mixedJobs(200, 10)}`,
        );
        const first = await scope.gwrun(["run", manifest]).done;
        expect(first.code).toBe(1);
        const jobs = await scope.tasks();
        expect(jobs).toHaveLength(210);
        const byState = (state: string) => jobs.filter((job) => job.state === state);
        // Nothing lost: every job ended done, failed (the gateway's reason) or expired (why).
        expect(byState("done").length + byState("failed").length + byState("expired").length).toBe(
          210,
        );
        expect(byState("failed").length).toBeGreaterThan(0);
        expect(byState("expired").length).toBeGreaterThan(0);
        for (const job of byState("failed")) expect(job.reason).toMatch(/^the task failed: \w/);
        for (const job of byState("expired")) expect(job.reason).toMatch(/expired/);
        expect(first.stderr).toMatch(/failed: the task failed/);
        const counters = scope.sim.counters();
        expect(counters.errors["500"]).toBeGreaterThan(0);
        expect(counters.errors.reset).toBeGreaterThan(0);
        expect(counters.downloads.truncated).toBeGreaterThan(0);
        expect(counters.errors["429"] ?? 0).toBeLessThanOrEqual(1);
        await expectWholeOutputs(scope);

        const status = await scope.gwrun(["status"]).done;
        expect(status.stdout).toMatch(/failures:/);
        expect(status.stdout).toMatch(/failed: the task failed/);

        let code = 1;
        for (let round = 0; round < 4 && code !== 0; round++) {
          code = (await scope.gwrun(["retry", "--failed", "--expired"]).done).code ?? -1;
        }
        expect(code).toBe(0);
        for (const { job, accepted } of await acceptedPerJob(scope)) {
          expect(job.state).toBe("done");
          // A job is paid for once per attempt the gateway itself failed or whose links died.
          expect(accepted).toBeLessThanOrEqual(job.attempts);
        }
      },
    );
  });

  it("stops submitting when the balance runs out and exits 3; nothing is billed for what never ran", async () => {
    await withRun({ balance: 2 }, async (scope) => {
      const manifest = scope.write(
        "balance.yaml",
        `${fastSettings(scope.outputDir)}name: balance
jobs:
  - id: sets
    model: acme2.7-image
    matrix: { take: [${Array.from({ length: 20 }, (_, i) => i + 1).join(", ")}] }
    prompt: "A mug, take {{take}}"
    size: "1:1"
`,
      );
      const result = await scope.gwrun(["run", manifest]).done;
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/balance ran out/);
      const jobs = await scope.tasks();
      expect(jobs.filter((job) => job.state === "done")).toHaveLength(10);
      expect(jobs.filter((job) => job.state === "pending")).toHaveLength(10);
      expect(scope.sim.counters().charged).toBe(2);
    });
  });

  it("after a balance stop, gwrun status says why the run stopped", async () => {
    await withRun({ balance: 0.2 }, async (scope) => {
      const manifest = scope.write(
        "broke.yaml",
        `${fastSettings(scope.outputDir)}name: broke
jobs:
  - id: sets
    model: acme2.7-image
    repeat: 3
    prompt: "A mug"
    size: "1:1"
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(3);
      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toMatch(/^ {2}stopped: the gateway balance ran out/m);
      const json = JSON.parse((await scope.gwrun(["status", "--json"]).done).stdout);
      expect(json.run.stop_reason).toMatch(/balance ran out/);
    });
  });

  it("stops at max_cost before submitting more than the budget covers, exit 3", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "budget.yaml",
        `${fastSettings(scope.outputDir).replace("max_in_flight: 200", "max_in_flight: 200, max_cost: 1")}name: budget
jobs:
  - id: sets
    model: acme2.7-image
    matrix: { take: [${Array.from({ length: 12 }, (_, i) => i + 1).join(", ")}] }
    prompt: "A mug, take {{take}}"
`,
      );
      const result = await scope.gwrun(["run", manifest]).done;
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/budget reached/);
      expect((await scope.tasks()).filter((job) => job.state === "done")).toHaveLength(5);
      expect(scope.sim.counters().submits.accepted).toBe(5);
    });
  });
});
