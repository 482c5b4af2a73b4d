import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

/** `gwrun watch` as a process of its own, against the simulator: files run as they land. */

/** A PNG of noise, so it does not compress to a few bytes: ~`side`² × 3 bytes. */
function noisyPicture(side: number): Promise<Buffer> {
  const raw = { raw: { width: side, height: side, channels: 3 as const } };
  return sharp(randomBytes(side * side * 3), raw)
    .png()
    .toBuffer();
}

/** Copies `bytes` into the scope's `in/` as a copy tool does: written aside, then moved in. */
function copyIn(scope: RunScope, name: string, bytes: Buffer): void {
  const aside = path.join(scope.dir, `.${name}.part`);
  writeFileSync(aside, bytes);
  renameSync(aside, path.join(scope.dir, "in", name));
}

/** A manifest editing each `in/*.png`; `firstPoll`: when a task is first asked after. */
function watchManifest(scope: RunScope, firstPoll = "20ms"): string {
  mkdirSync(path.join(scope.dir, "in"), { recursive: true });
  const settings = fastSettings(scope.outputDir).replace(
    "first_after: 20ms",
    `first_after: ${firstPoll}`,
  );
  return scope.write(
    "inbox.yaml",
    `${settings}name: inbox
jobs:
  - id: edit
    model: acme-imagine-1.0-edit-fast
    rows: { files: "in/*.png" }
    prompt: "Make the light warmer"
    image_urls: ["{{row.file}}"]
    label: "{{row.stem}}"
`,
  );
}

/** `gwrun watch` started, with what it has written on stderr so far. */
function startWatch(scope: RunScope, manifest: string) {
  const watch = scope.spawn(["watch", manifest, "--settle", "1s"]);
  let stderr = "";
  watch.child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return {
    ...watch,
    stderr: () => stderr,
    count: (pattern: RegExp) => stderr.match(new RegExp(pattern, "g"))?.length ?? 0,
  };
}

interface PlannedTask {
  label: string;
  status: string;
  vars: { row: { sha256: string; bytes: number } };
}

describe("gwrun watch", () => {
  it("runs each picture copied in once, one written in two halves only once whole, and stops on SIGTERM", async () => {
    await withRun({ seed: "watch" }, async (scope) => {
      const manifest = watchManifest(scope);
      const watch = startWatch(scope, manifest);
      await until("the watch to start", () => watch.stderr().includes("gwrun watch: inbox"));

      const [a, b] = [await noisyPicture(64), await noisyPicture(64)];
      copyIn(scope, "a.png", a);
      copyIn(scope, "b.png", b);
      await until("both pictures run", () => scope.sim.counters().submits.accepted === 2, {
        timeoutMs: 20_000,
      });
      await until("the batch's line", () => watch.count(/: took \d files?/) >= 1);
      expect(watch.stderr()).toMatch(
        /inbox: took 2 files \(in\/a\.png, in\/b\.png\), 2 new tasks: run 1 done \(2 tasks: 2 done, 0 failed\); paid [\d.]+; exit 0/,
      );

      // Half a picture, then a pause twice the settle time: the thing under test.
      const whole = await noisyPicture(300);
      const half = Math.floor(whole.length / 2);
      writeFileSync(path.join(scope.dir, "in/c.png"), whole.subarray(0, half));
      // Told once the settle time passed: waited for as the line it writes.
      await until("the cut picture to be told", () =>
        /in\/c\.png has not changed for 1 s but is not whole: a PNG cut short/.test(watch.stderr()),
      );
      expect(scope.sim.counters().submits.received).toBe(2);
      appendFileSync(path.join(scope.dir, "in/c.png"), whole.subarray(half));
      await until("the second batch", () => watch.count(/: took \d files?/) >= 2, {
        timeoutMs: 20_000,
      });
      expect(watch.stderr()).toMatch(/inbox: took 1 file \(in\/c\.png\), 1 new task: run 2 done/);
      expect(scope.sim.counters().submits.received).toBe(3);

      watch.child.kill("SIGTERM");
      const ended = await watch.done;
      expect(ended.code, ended.stderr).toBe(0);
      expect(ended.stderr).toMatch(/gwrun watch: stopped\n$/);
      expect(ended.stderr).not.toContain("test-key");

      // The picture sent was the whole one: its task, keyed by its bytes, is done.
      const plan = await scope.gwrun(["plan", manifest, "--json"]).done;
      const tasks = (JSON.parse(plan.stdout) as { tasks: PlannedTask[] }).tasks;
      expect(tasks.map((task) => [task.label, task.status])).toEqual([
        ["a", "done"],
        ["b", "done"],
        ["c", "done"],
      ]);
      const c = tasks.find((task) => task.label === "c");
      expect(c?.vars.row).toMatchObject({
        bytes: whole.length,
        sha256: createHash("sha256").update(whole).digest("hex"),
      });
      const runs = await scope.gwrun(["runs"]).done;
      expect(runs.stdout).toMatch(/^ +2 +inbox +done/m);
      expect(runs.stdout).toMatch(/^ +1 +inbox +done/m);
      const status = await scope.gwrun(["status"]).done;
      expect(status.code, status.stderr).toBe(0);
    });
  });

  it("runs what landed while it was down, stops a run under way on SIGTERM (exit 130), and leaves it to resume", async () => {
    await withRun({ seed: "watch-stop" }, async (scope) => {
      // The first poll comes late, so the run is still going when SIGTERM comes.
      const manifest = watchManifest(scope, "5s");
      copyIn(scope, "landed.png", await noisyPicture(64));
      const watch = startWatch(scope, manifest);
      await until("the run to submit", () => scope.sim.counters().submits.accepted === 1, {
        timeoutMs: 20_000,
      });
      const asked = Date.now();
      watch.child.kill("SIGTERM");
      const ended = await watch.done;
      expect(Date.now() - asked).toBeLessThan(5_000);
      expect(ended.code, ended.stderr).toBe(130);
      expect(ended.stderr).toMatch(
        /inbox: took 1 file \(in\/landed\.png\), 1 new task: run 1 interrupted/,
      );
      const resumed = await scope.gwrun(["resume", "1", "--quiet"]).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(1);
    });
  });

  it("refuses a manifest without a rows: { files } job", async () => {
    await withRun({ seed: "watch-none" }, async (scope) => {
      const manifest = scope.write(
        "plain.yaml",
        `${fastSettings(scope.outputDir)}jobs: [{ id: a, model: acme-image-2, prompt: x }]\n`,
      );
      const result = await scope.gwrun(["watch", manifest]).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/plain\.yaml: has no job with rows: \{ files: GLOB \}/);
    });
  });
});
