import { describe, expect, it } from "vitest";
import { status as statusOf } from "../../../src/index.js";
import { gwrunAsync } from "../../helpers/cli.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

describe("gwrun status and runs", () => {
  it("status counts jobs and tasks per job id (not per family) with the run's times; runs shows start, duration and tick", async () => {
    await withRun({ seed: "status" }, async (scope) => {
      const manifest = scope.write(
        "two.yaml",
        `${fastSettings(scope.outputDir)}name: two
jobs:
  - id: hero
    model: acme-image-2
    prompt: a ceramic mug
    repeat: 2
  - id: detail
    model: acme-image-2
    prompt: the handle of a ceramic mug
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toMatch(/^run 1: two — done \(exit 0\), started \S+Z, took \d+s$/m);
      expect(status).toContain("  2 jobs, 3 tasks: 3 done; paid");
      expect(status).toMatch(/^ {2}hero {4}image-a {8}2 done$/m);
      expect(status).toMatch(/^ {2}detail {2}image-a {8}1 done$/m);
      // A SQLite store has no fleet.
      expect(status).not.toContain("fleet");
      // What `status --json` prints, read in this process.
      const json = await statusOf(undefined, { db: scope.db });
      expect(json).not.toHaveProperty("fleet");
      expect(json).toMatchObject({
        tasks: 3,
        jobs: [
          { id: "hero", family: "image-a", tasks: 2, states: { done: 2 } },
          { id: "detail", family: "image-a", tasks: 1, states: { done: 1 } },
        ],
      });

      const runs = (await scope.gwrun(["runs"]).done).stdout.split("\n");
      expect(runs[0]).toMatch(/^run {2}name +status +started +took +paid +tick +manifest$/);
      expect(runs[1]).toMatch(
        /^ {2}1 {2}two +done +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z +\d+s +[\d.]+ +– +\S+two\.yaml$/,
      );
    });
  });

  it("status mid-run, the run's plain lines and plan count the plan's tasks, dependants included", async () => {
    await withRun({ seed: "expected" }, async (scope) => {
      // The first poll comes late, so the run is seen with its pictures submitted and no clip yet.
      const settings = fastSettings(scope.outputDir).replace(
        "first_after: 20ms",
        "first_after: 6s",
      );
      const manifest = scope.write(
        "chain.yaml",
        `${settings}name: chain
jobs:
  - { id: hero, model: acme-image-2, prompt: a ceramic mug, size: "1:1", repeat: 2 }
  - { id: styles, model: acme2.7-image, prompt: "a mug, {{style}}", matrix: { style: [clay, ink] } }
  - { id: teaser, model: acme-video-2.3-Fast, from: hero, first_frame_image: "{{input.url}}", prompt: "[推进] in" }
`,
      );
      const planned = gwrunAsync(["plan", manifest, "--json", "--db", scope.db], {
        cwd: scope.dir,
      });
      const plan = JSON.parse((await planned.done).stdout);
      expect(plan.totals.tasks).toBe(6);
      // The run in a process of its own; status in this one, quick to ask again.
      const run = scope.spawn(["run", manifest]);
      // All four pictures at the gateway (submitted, or processing by its answer).
      const json = await until("four pictures at the gateway", async () => {
        const seen = await scope.gwrun(["status", "--json"]).done;
        if (seen.code !== 0) return undefined;
        const status: { states: Record<string, number> } = JSON.parse(seen.stdout);
        const { submitted = 0, processing = 0 } = status.states;
        return submitted + processing >= 4 && status;
      });
      expect(json).toMatchObject({
        tasks: 4,
        awaiting_upstream: 2,
        expected_tasks: 6,
        expected_exact: true,
      });
      expect(json).toHaveProperty(
        "jobs",
        expect.arrayContaining([
          { id: "teaser", family: "video-1", tasks: 0, states: {}, awaiting_upstream: 2 },
        ]),
      );
      const mid = (await scope.gwrun(["status"]).done).stdout;
      expect(mid).toMatch(
        /^ {2}3 jobs, 6 tasks: (\d+ (submitted|processing), )+2 awaiting upstream;/m,
      );
      expect(mid).toMatch(/^ {2}teaser {2}video-1 {8}2 awaiting upstream$/m);
      const ended = await run.done;
      expect(ended.code, ended.stderr).toBe(0);
      // The run's own lines count six from the start.
      expect(ended.stderr).toMatch(/gwrun: run 1: 3 jobs, 6 tasks, 0 already done\n/);
      const progress = ended.stderr.match(/ \d+\/\d+ tasks done/g) ?? [];
      expect(progress.length).toBeGreaterThan(0);
      for (const line of progress) expect(line).toMatch(/\/6 tasks done$/);
      const after = (await scope.gwrun(["status"]).done).stdout;
      expect(after).toMatch(/^ {2}3 jobs, 6 tasks: 6 done;/m);
    });
  });
});
