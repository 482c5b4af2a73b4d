import { describe, expect, it } from "vitest";
import { eventLineSchema } from "../../../src/ui/index.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { mixedJobs } from "../../helpers/run-manifests.js";

describe("reporters of a real run", () => {
  it("--json prints one schema-valid, versioned event per line and nothing else on stdout", async () => {
    await withRun(
      { seed: "json", rateLimit: { perSecond: 200, burst: 5 }, faults: { taskFailureRate: 0.2 } },
      async (scope) => {
        const manifest = scope.write(
          "json.yaml",
          `${fastSettings(scope.outputDir)}name: json\n${mixedJobs(30, 3)}`,
        );
        const result = await scope.gwrun(["run", manifest, "--json"]).done;
        expect(result.code).toBe(1);
        const lines = result.stdout.trimEnd().split("\n");
        const events = lines.map((line, i) => {
          const parsed = eventLineSchema.safeParse(JSON.parse(line));
          expect(parsed.error, `line ${i + 1}: ${line}`).toBeUndefined();
          return parsed.data!;
        });
        expect(events.every((event) => event.v === 2 && event.at > 0)).toBe(true);
        const types = new Set(events.map((event) => event.type));
        for (const type of [
          "run:started",
          "task:submitting",
          "task:submitted",
          "task:completed",
          "output:downloaded",
          "task:done",
          "task:failed",
        ])
          expect(types, type).toContain(type);
        expect(events[0]).toMatchObject({
          type: "run:started",
          name: "json",
          maxCost: null,
          jobs: 2,
          tasks: 33,
          groups: [
            { job: "stills", family: "image-a", tasks: 30 },
            { job: "clips", family: "video-10", tasks: 3 },
          ],
        });
        expect(events.at(-1)).toMatchObject({ type: "run:finished", end: "failed" });
        expect(result.stderr).not.toMatch(/done, \d+ failed/);
      },
    );
  });

  it("without a terminal prints the start, failures and the summary; --quiet only the last two", async () => {
    await withRun({ seed: "plain", faults: { taskFailureRate: 0.3 } }, async (scope) => {
      const manifest = scope.write(
        "plain.yaml",
        `${fastSettings(scope.outputDir)}name: plain\n${mixedJobs(20, 0)}`,
      );
      const plain = await scope.gwrun(["run", manifest]).done;
      expect(plain.code).toBe(1);
      expect(plain.stdout).toBe("");
      // Every line a log greps carries the time; the indented ones continue the line above.
      for (const line of plain.stderr.trimEnd().split("\n"))
        expect(line).toMatch(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z | {2})/);
      const stderr = unstamped(plain.stderr);
      expect(stderr).toMatch(/^gwrun: run 1: 1 job, 20 tasks, 0 already done$/m);
      expect(stderr).toMatch(/^gwrun: stills-\S+ failed: the task failed: /m);
      expect(stderr).toMatch(/^gwrun: \d+\/20 tasks done, \d+ failed · queued 0 · /m);
      expect(stderr).toMatch(
        /^gwrun: run 1 failed after \d+s: 20 tasks, \d+ done, \d+ failed; paid \S+; outputs in out$/m,
      );
      expect(stderr).toMatch(/^ {2}\d+ × the task failed: /m);
      expect(stderr).toMatch(/^next: gwrun retry --failed 1 --db \S+ \(stills-\S+, /m);
      expect(stderr).toMatch(/^gallery: out\/index\.html; results: out\/results\.jsonl$/m);

      const quiet = await scope.gwrun(["retry", "--failed", "--quiet"]).done;
      const lines = unstamped(quiet.stderr).trimEnd().split("\n");
      expect(lines[0]).toMatch(/back to pending/);
      expect(quiet.stderr).not.toMatch(/already done|· queued/);
      expect(lines.join("\n")).toMatch(
        /^gwrun: run 1 (done|failed) after \d+s: 20 tasks, \d+ done/m,
      );
      for (const line of lines.slice(1))
        expect(line).toMatch(
          /^(gwrun: stills-\S+ failed: |gwrun: run 1 |\s+\d+ × |next: |gallery: )/,
        );
    });
  });
});

/** The lines without the time in front. */
function unstamped(text: string): string {
  return text.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm, "");
}
