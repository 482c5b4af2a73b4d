import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256 } from "../../../src/core/hash.js";
import { openStore } from "../../../src/store/index.js";
import { ROOT } from "../../helpers/cli.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

/**
 * manifests/pipeline.yaml as it is, but for its pace: the test's gateway is a simulator at
 * another time scale than the one the file's poll timings are written for, and outputs go to
 * the test's folder.
 */
function pipelineManifest(scope: RunScope): string {
  let text = readFileSync(path.join(ROOT, "manifests/pipeline.yaml"), "utf8");
  const changes: [RegExp, string][] = [
    [/submit_rate: .*/, "submit_rate: 100/s"],
    [/^poll: .*/m, "poll: { first_after: 20ms, every: 20ms, batch_size: 50 }"],
    [/^retry: .*/m, "retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }"],
    [/dir: data\/outputs\/\{name\}/, `dir: ${JSON.stringify(scope.outputDir)}`],
  ];
  for (const [pattern, replacement] of changes) {
    expect(text).toMatch(pattern);
    text = text.replace(pattern, replacement);
  }
  return scope.write("pipeline.yaml", text);
}

/** Times the simulator accepted exactly this request. */
function accepted(scope: RunScope, endpoint: string, request: string): number {
  const hash = sha256(`${endpoint}\n${canonicalJson(JSON.parse(request))}`);
  return scope.sim.counters().submits.byRequest[hash] ?? 0;
}

/** Waits until `ready` holds for the run's jobs in the database (read while gwrun writes it). */
async function waitFor(
  scope: RunScope,
  ready: (jobs: Awaited<ReturnType<RunScope["tasks"]>>) => boolean,
): Promise<void> {
  await until(
    "the run to get there",
    // The database may not exist yet.
    () => scope.tasks().then(ready, () => false),
    { everyMs: 10 },
  );
}

describe("pipelines", () => {
  it("runs manifests/pipeline.yaml: killed halfway, resumed, each step fed by its own upstream output and none redone", async () => {
    // Time scale 60: an image takes about a second, a clip two, so a kill lands mid-pipeline.
    await withRun({ seed: "pipeline", timeScale: 60 }, async (scope) => {
      const manifest = pipelineManifest(scope);
      const first = scope.spawn(["run", manifest]);
      // Halfway: the captions are written and a clip has been sent, but not every clip is done.
      await waitFor(scope, (jobs) =>
        jobs.some(
          (job) => job.job_id === "clips" && ["submitted", "processing"].includes(job.state),
        ),
      );
      first.child.kill("SIGKILL");
      await first.done;
      const halfway = await scope.tasks();
      expect(
        halfway.filter((job) => job.job_id === "clips" && job.state === "done").length,
      ).toBeLessThan(3);
      const doneBefore = new Set(
        halfway.filter((job) => job.state === "done").map((job) => job.key),
      );
      expect(doneBefore.size).toBeGreaterThanOrEqual(2);

      const resumed = await scope.gwrun(["resume"]).done;
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toMatch(/run 1 done after [^:]+: 7 tasks, 7 done/);

      const jobs = await scope.tasks();
      const byKey = new Map(jobs.map((job) => [job.key, job]));
      const captions = jobs.filter((job) => job.job_id === "captions");
      const images = jobs.filter((job) => job.job_id === "images");
      const clips = jobs.filter((job) => job.job_id === "clips");
      expect([captions.length, images.length, clips.length]).toEqual([1, 3, 3]);
      for (const job of jobs) expect(job.state, job.label).toBe("done");

      // Every caption produced an image, with that caption as its prompt.
      const [caption] = captions;
      const texts = (caption?.outputs ?? []).map((output) =>
        readFileSync(output.path ?? "", "utf8").trim(),
      );
      expect(texts).toHaveLength(3);
      expect(new Set(texts).size).toBe(3);
      expect(images.map((image) => image.upstream_key)).toEqual([
        caption?.key,
        caption?.key,
        caption?.key,
      ]);
      expect(images.map((image) => JSON.parse(image.request).prompt).sort()).toEqual(
        [...texts].sort(),
      );

      // Every image produced a clip whose first frame is that image's link, as sent.
      for (const clip of clips) {
        const image = byKey.get(clip.upstream_key ?? "");
        expect(image?.job_id).toBe("images");
        const link = image?.outputs[0]?.url;
        expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
        expect(JSON.parse(clip.request).first_frame_image).toBe(link);
        expect(accepted(scope, clip.endpoint, clip.request)).toBeGreaterThanOrEqual(1);
      }
      expect(new Set(clips.map((clip) => clip.upstream_key)).size).toBe(3);

      // Nothing finished before the kill was paid for again; a submit the kill cut off is the
      // only kind sent twice, and it is counted.
      expect(scope.sim.counters().text.calls).toBe(1);
      for (const job of [...images, ...clips]) {
        const times = accepted(scope, job.endpoint, job.request);
        if (doneBefore.has(job.key)) expect(times, job.label).toBe(1);
        expect(times - 1, job.label).toBeLessThanOrEqual(job.unknown_submits);
      }

      // And a run of the same manifest now pays for nothing.
      const before = scope.sim.counters().submits.accepted;
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(before);
      expect(scope.sim.counters().text.calls).toBe(1);
    });
  });

  it("skips the dependants of a refused upstream with its reason, shown by gwrun status", async () => {
    await withRun({ seed: "skips" }, async (scope) => {
      const manifest = scope.write(
        "skips.yaml",
        `${fastSettings(scope.outputDir)}name: skips
jobs:
  - id: shots
    model: acme-image-2
    matrix: { subject: [a ceramic mug, a forbidden mug] }
    prompt: "{{subject}} on an oak table"
  - id: clips
    model: acme-video-2.3-Fast
    from: shots
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
    repeat: 2
  - id: stills
    model: acme-image-2
    from: clips
    prompt: "a still from the clip"
    image_urls: ["{{input.url}}"]
`,
      );
      const result = await scope.gwrun(["run", manifest, "--json"]).done;
      expect(result.code).toBe(1);
      const states = Object.fromEntries(
        (await scope.tasks()).map((job) => [job.label, [job.state, job.reason]]),
      );
      expect(states["shots-e2"]?.[0]).toBe("rejected");
      expect(states["shots-e2"]?.[1]).toMatch(/safety filter/);
      expect(states["clips-r1-of-shots-e1"]?.[0]).toBe("done");
      expect(states["clips-r2-of-shots-e1"]?.[0]).toBe("done");
      // One stand-in per template and repeat, down the chain, each with the upstream's reason.
      const skipped = (await scope.tasks()).filter((job) => job.state === "skipped");
      expect(skipped.map((job) => job.label).sort()).toEqual([
        "clips-r1-of-shots-e2",
        "clips-r2-of-shots-e2",
        "stills-of-clips-r1-of-shots-e2",
        "stills-of-clips-r2-of-shots-e2",
      ]);
      for (const job of skipped) {
        expect(job.reason).toMatch(/^upstream shots-e2 failed: .*safety filter/);
        expect(job.task_id).toBeNull();
      }
      const events = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(
        events.filter((event) => event.type === "task:failed" && event.state === "skipped"),
      ).toHaveLength(4);

      const status = await scope.gwrun(["status"]).done;
      expect(status.stdout).toMatch(/4 skipped/);
      expect(status.stdout).toMatch(
        /clips-r1-of-shots-e2 skipped: upstream shots-e2 failed: .*safety filter/,
      );

      // Retried, the upstream is refused again: the same stand-ins are skipped again, no more.
      const retried = await scope.gwrun(["retry", "--failed"]).done;
      expect(retried.code).toBe(1);
      expect((await scope.tasks()).filter((job) => job.state === "skipped")).toHaveLength(4);
      expect(await scope.tasks()).toHaveLength(10);
    });
  });

  it("replaces skipped stand-ins with real dependants once a retried upstream succeeds", async () => {
    await withRun({ seed: "flaky-7", faults: { taskFailureRate: 0.5 } }, async (scope) => {
      const manifest = scope.write(
        "flaky.yaml",
        `${fastSettings(scope.outputDir)}name: flaky
jobs:
  - id: shots
    model: acme-image-2
    matrix: { angle: [front, side, top, back] }
    prompt: "a ceramic mug from the {{angle}}"
  - id: clips
    model: acme-video-2.3-Fast
    from: shots
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code).toBe(1);
      expect((await scope.tasks()).some((job) => job.state === "skipped")).toBe(true);
      // Each retry rolls the failures afresh. A shot and its clip each fail half their tries
      // (a clip is tried in the run its shot succeeds), so a chain is still unfinished after n
      // runs with odds (n + 2) / 2^(n + 1): one of four chains about 1 time in 24 after 9
      // runs, 1 in 24,000 after 20.
      let code = first.code;
      for (let round = 0; round < 19 && code !== 0; round++) {
        code = (await scope.gwrun(["retry", "--failed"]).done).code;
      }
      expect(code).toBe(0);
      const jobs = await scope.tasks();
      const shots = jobs.filter((job) => job.job_id === "shots");
      const clips = jobs.filter((job) => job.job_id === "clips");
      expect(shots).toHaveLength(4);
      expect(clips).toHaveLength(4);
      for (const job of jobs) expect(job.state, job.label).toBe("done");
      expect(new Set(clips.map((clip) => clip.upstream_key))).toEqual(
        new Set(shots.map((shot) => shot.key)),
      );
      const store = openStore(scope.db);
      try {
        const left = store.db.prepare("SELECT count(*) AS n FROM jobs WHERE placeholder = 1").get();
        expect(left).toEqual({ n: 0 });
      } finally {
        await store.close();
      }
    });
  });

  it("sends a downloaded image as a Data URI once its link has expired, and fails a URL-only dependant saying why", async () => {
    // Links last 4 gateway hours: about four real seconds at this time scale.
    await withRun({ seed: "ttl", linkTtlSeconds: 4 * 3600 }, async (scope) => {
      const shot = `  - { id: shot, model: acme-image-2, prompt: "a ceramic mug", size: "1:1" }\n`;
      const settings = `${fastSettings(scope.outputDir)}name: ttl\njobs:\n`;
      const first = scope.write("first.yaml", `${settings}${shot}`);
      expect((await scope.gwrun(["run", first]).done).code).toBe(0);
      const [image] = await scope.tasks();
      const output = image?.outputs[0];
      expect(output?.expires_at).toBeTypeOf("number");
      while (Date.now() <= (output?.expires_at ?? 0) + 100) await sleep(100);

      const second = scope.write(
        "second.yaml",
        `${settings}${shot}  - id: clip
    model: acme-video-2.3-Fast
    from: shot
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
  - id: orbit
    model: acme-v4-fast
    from: shot
    first_frame_image: "{{input.url}}"
    prompt: a slow orbit
    resolution: 720p
    duration: 5
`,
      );
      const result = await scope.gwrun(["run", second]).done;
      expect(result.code).toBe(1);
      const jobs = new Map((await scope.tasks()).map((job) => [job.job_id, job]));
      const file = readFileSync(output?.path ?? "");
      expect(jobs.get("clip")?.state).toBe("done");
      expect(JSON.parse(jobs.get("clip")?.request ?? "{}").first_frame_image).toBe(
        `data:image/png;base64,${file.toString("base64")}`,
      );
      expect(jobs.get("orbit")).toMatchObject({ state: "failed", task_id: null });
      expect(jobs.get("orbit")?.reason).toMatch(
        /^first_frame_image: the link of shot has expired and video family 3 accepts only http\(s\) URLs there/,
      );
      const status = await scope.gwrun(["status"]).done;
      expect(status.stdout).toMatch(
        /orbit-of-shot failed: first_frame_image: the link of shot has expired/,
      );
      // The image was not made again.
      expect(scope.sim.counters().submits.accepted).toBe(2);
    });
  });

  it("edits an upstream picture served over plain http by sending its file, where the edits endpoint takes only https", async () => {
    await withRun({ seed: "edits" }, async (scope) => {
      const manifest = scope.write(
        "edits.yaml",
        `${fastSettings(scope.outputDir)}name: edits
jobs:
  - { id: shot, model: acme-image-2, prompt: "a ceramic mug", size: "1:1" }
  - id: glossy
    model: acme-imagine-1.0-edit-fast
    from: shot
    prompt: make it glossy
    image_urls: ["{{input.url}}"]
`,
      );
      const result = await scope.gwrun(["run", manifest]).done;
      expect(result.code).toBe(0);
      const jobs = new Map((await scope.tasks()).map((job) => [job.job_id, job]));
      expect(scope.sim.url).toMatch(/^http:\/\//);
      const file = readFileSync(jobs.get("shot")?.outputs[0]?.path ?? "");
      expect(jobs.get("glossy")?.state).toBe("done");
      expect(JSON.parse(jobs.get("glossy")?.request ?? "{}").image_urls).toEqual([
        `data:image/png;base64,${file.toString("base64")}`,
      ]);
    });
  });
});
