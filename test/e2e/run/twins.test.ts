import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../src/core/random.js";
import { dependantTasks, initialTasks, nextTakes, taskKey } from "../../../src/plan/index.js";
import { gridItems } from "../../../src/view/data.js";
import { gwrun } from "../../helpers/cli.js";
import { checkInline, tempDir } from "../../helpers/manifest.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { taskRow } from "../../helpers/task-row.js";

/** Expansions sending the same request stay apart, each with its own variables. */

const jobs = (styles: string) => `jobs:
  - id: hero
    model: acme-image-2
    prompt: a ceramic mug
    size: "256x256"
    matrix:
      style: [${styles}]
`;

describe("expansions that send the same request", () => {
  it("validation warns at the matrix variable the request does not change with", async () => {
    const dir = tempDir({ "m.yaml": `version: 1\n${jobs("noir, pastel")}` });
    const result = await gwrun(["validate", path.join(dir, "m.yaml")]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("valid (1 job, 2 tasks)");
    expect(result.stderr).toContain(
      "m.yaml:8:7  warning expansions 1 and 2 send the same request (the request does not change with style): each stays a task of its own, with its own files, and is paid for  [same-request]",
    );
    expect(result.stderr).toContain(
      "hint: use {{style}} in a request field, or take it out of the matrix",
    );
  });

  it("a value listed twice is warned about too; variables the request uses are not", async () => {
    const warnings = async (matrix: string, prompt = "a {{style}} mug") =>
      (
        await checkInline(`version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: "${prompt}", matrix: ${matrix} }
`)
      ).diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.message}`);
    expect(await warnings("{ style: [noir, pastel, noir] }")).toEqual([
      "3:65 warning expansions 1 and 3 send the same request (the matrix lists the same values more than once): each stays a task of its own, with its own files, and is paid for",
    ]);
    expect(await warnings("{ style: [noir, pastel], size: [1:1, 16:9] }")).toEqual([]);
    // 1 and "1" read the same in a prompt.
    expect(await warnings(`{ style: [noir], v: [1, "1"] }`, "a {{style}} mug {{v}}")).toEqual([
      "3:96 warning expansions 1 and 2 send the same request (values of v read alike in the request): each stays a task of its own, with its own files, and is paid for",
    ]);
  });

  it("each expansion is a task of its own, and the record never shows one's variables under another's label", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "twins.yaml",
        `${fastSettings(scope.outputDir)}${jobs("noir, pastel")}`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain("send the same request");
      expect(scope.sim.counters().submits.accepted).toBe(2);
      const named = async () => {
        const store = await scope.open();
        try {
          const run = await store.latestRun();
          if (run === undefined) throw new Error("no run");
          const grid = (await gridItems(store, run, [scope.dir])).outputs.map((item) => [
            item.label,
            item.vars.style,
          ]);
          return grid.sort();
        } finally {
          await store.close();
        }
      };
      expect(await named()).toEqual([
        ["hero-e1", "noir"],
        ["hero-e2", "pastel"],
      ]);
      const results = () =>
        readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map(
            (line) => JSON.parse(line) as { label: string; vars: { style: string }; file: string },
          )
          .map((line) => [line.label, line.vars.style, line.file])
          .sort();
      expect(results()).toEqual([
        ["hero-e1", "noir", "hero/hero-e1.png"],
        ["hero-e2", "pastel", "hero/hero-e2.png"],
      ]);

      // The values listed the other way round: the same two tasks, paid once, named anew.
      scope.write("twins.yaml", `${fastSettings(scope.outputDir)}${jobs("pastel, noir")}`);
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code, again.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(2);
      expect(await named()).toEqual([
        ["hero-e1", "pastel"],
        ["hero-e2", "noir"],
      ]);
      expect(results()).toEqual([
        ["hero-e1", "pastel", "hero/hero-e1.png"],
        ["hero-e2", "noir", "hero/hero-e2.png"],
      ]);
    });
  });

  it("keys of tasks whose requests differ are as they always were; only a later twin's names its label", async () => {
    const distinct = await checkInline(`version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: "a {{style}} mug", repeat: 2, matrix: { style: [noir, pastel] } }
`);
    for (const task of initialTasks(distinct.jobs)) {
      const body = JSON.parse(task.request) as Record<string, unknown>;
      expect(task.key).toBe(
        taskKey({ endpoint: task.endpoint, body, repeatIndex: task.repeatIndex ?? 0 }),
      );
    }
    const twins = initialTasks(
      (await checkInline(`version: 1\n${jobs("noir, pastel, noir")}`)).jobs,
    );
    const [body] = twins.map((task) => JSON.parse(task.request) as Record<string, unknown>);
    const plain = taskKey({ endpoint: "/v1/images/generations", body: body ?? {}, repeatIndex: 0 });
    expect(twins.map((task) => [task.label, task.vars])).toEqual([
      ["hero-e1", { style: "noir" }],
      ["hero-e2", { style: "pastel" }],
      ["hero-e3", { style: "noir" }],
    ]);
    expect(twins[0]?.key).toBe(plain);
    expect(new Set(twins.map((task) => task.key)).size).toBe(3);
  });

  it("a from: job's twins stay apart, and so do the takes of twins", async () => {
    const checked = await checkInline(`version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug, size: "256x256" }
  - id: teaser
    model: acme-image-2
    from: hero
    prompt: the mug again
    image_urls: ["{{input.url}}"]
    matrix: { mood: [calm, loud] }
`);
    const templates = checked.jobs.filter((job) => job.job.spec.id === "teaser");
    const dependants = dependantTasks(
      templates,
      { key: "up", label: "hero", outputIndex: 0, outputs: 1 },
      {
        label: "hero",
        kind: "media",
        url: "https://gw.example/hero.png",
        dataUri: () => "",
        text: () => "",
      },
    );
    expect(dependants.map(({ task }) => [task.label, task.vars])).toEqual([
      ["teaser-e1-of-hero", { mood: "calm" }],
      ["teaser-e2-of-hero", { mood: "loud" }],
    ]);
    expect(new Set(dependants.map(({ task }) => task.key)).size).toBe(2);

    // A family without a seed sends a take's request unchanged: twins' takes keep apart too.
    const request = JSON.stringify({ model: "acme-image-2", prompt: "a mug", size: "1:1" });
    const noir = taskRow({
      key: "k1",
      job_id: "hero",
      label: "hero-e1",
      request,
      vars: '{"style":"noir"}',
    });
    const pastel = taskRow({
      key: "k2",
      job_id: "hero",
      label: "hero-e2",
      request,
      vars: '{"style":"pastel"}',
    });
    const takes = nextTakes([noir, pastel], new Set(["k1", "k2"]), seededRandom(1));
    expect(takes.map((take) => [take.label, take.vars])).toEqual([
      ["hero-e1-t2", { style: "noir" }],
      ["hero-e2-t2", { style: "pastel" }],
    ]);
    expect(takes[0]?.key).toBe(
      taskKey({ endpoint: noir.endpoint, body: JSON.parse(request), repeatIndex: 0, take: 2 }),
    );
    expect(takes[1]?.key).not.toBe(takes[0]?.key);
    // Made on its own, later, the second twin's take is still its own.
    expect(nextTakes([noir, pastel], new Set(["k2"]), seededRandom(2))[0]?.key).toBe(takes[1]?.key);
  });
});
