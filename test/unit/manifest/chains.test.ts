import { describe, expect, it } from "vitest";
import { dependantsOfOutputs, dependantTemplates, planRun } from "../../../src/plan/index.js";
import type { OutputRow } from "../../../src/store/index.js";
import { checkInline } from "../../helpers/manifest.js";

/** `from: { job, where }` and an upstream's variables in its dependants. */

const MANIFEST = `version: 1
jobs:
  - id: shots
    model: acme-image-2
    rows: p.csv
    matrix: { style: [studio, kitchen] }
    prompt: "{{row.name}}, {{style}}"
  - id: clips
    model: acme-video-2.3-Fast
    from: { job: shots, where: { style: studio } }
    first_frame_image: "{{input.url}}"
    prompt: "push in on the {{input.row.name}}"
  - id: captions
    endpoint: chat
    model: acme-5
    from: shots
    messages: [{ role: user, content: "{{input.row.name}} ({{input.vars.style}}): {{input.row.tagline}}" }]
`;
const CSV = 'name,tagline\n"Copper pan, 24 cm",Even heat\nCrème mug,Slow mornings\n';

const output = (url: string): OutputRow =>
  ({ idx: 0, url, expires_at: null, content_type: "image/png", path: null }) as OutputRow;

describe("chains that pick their inputs", () => {
  it("the plan counts only the upstream outputs where: keeps", async () => {
    const checked = await checkInline(MANIFEST, { "p.csv": CSV });
    expect(checked.diagnostics).toEqual([]);
    const plan = planRun("m.yaml", checked.expanded.settings as never, checked.jobs);
    expect(plan.groups.map((group) => [group.job, group.tasks])).toEqual([
      ["shots", 4],
      ["clips", 2],
      ["captions", 4],
    ]);
  });

  it("a dependant is made only for a kept upstream, reading its row and variables", async () => {
    const checked = await checkInline(MANIFEST, { "p.csv": CSV });
    const templates = dependantTemplates(checked.jobs).get("shots") ?? [];
    const read = { dataUri: () => "", text: () => "" };
    const made = (vars: Record<string, unknown>, label: string) =>
      dependantsOfOutputs(
        templates,
        { key: label, label, vars },
        [output("https://x/1.png")],
        0,
        read,
      ).map(({ task, problem }) => ({
        job: task.jobId,
        request: JSON.parse(task.request),
        problem,
      }));
    const studio = made(
      { style: "studio", row: { name: "Copper pan, 24 cm", tagline: "Even heat" } },
      "a",
    );
    expect(studio.map(({ job }) => job)).toEqual(["clips", "captions"]);
    expect(studio[0]?.request.prompt).toBe("push in on the Copper pan, 24 cm");
    expect(studio[1]?.request.messages[0].content).toBe("Copper pan, 24 cm (studio): Even heat");
    expect(studio.every(({ problem }) => problem === null)).toBe(true);
    const kitchen = made(
      { style: "kitchen", row: { name: "Crème mug", tagline: "Slow mornings" } },
      "b",
    );
    expect(kitchen.map(({ job }) => job)).toEqual(["captions"]);
    expect(kitchen[0]?.request.messages[0].content).toBe("Crème mug (kitchen): Slow mornings");
  });

  it("an upstream variable or column that does not exist is an error naming those that do", async () => {
    const checked = await checkInline(
      MANIFEST.replace("{{input.row.tagline}}", "{{input.row.tagln}} {{input.vars.size}}"),
      { "p.csv": CSV },
    );
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`)).toEqual([
      '17:83 undefined-field {{input.row.tagln}}: p.csv has no column "tagln" (did you mean "tagline"?); its columns are name, tagline',
      '17:103 undefined-field {{input.vars.size}}: job "shots" has no variable "size"; its variables are style, row',
    ]);
  });

  it("a where: naming no variable of the upstream is an error with a did-you-mean", async () => {
    const checked = await checkInline(
      MANIFEST.replace("where: { style: studio }", "where: { styel: studio }"),
      {
        "p.csv": CSV,
      },
    );
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`)).toEqual([
      '10:34 unknown-variable where: job "shots" has no variable "styel" (did you mean "style"?); it has style, name, tagline',
    ]);
  });

  it("a number field written as an upstream variable says that those fill text", async () => {
    const checked = await checkInline(
      MANIFEST.replace(
        '    prompt: "push in on the {{input.row.name}}"',
        '    prompt: "push in"\n    duration: "{{input.vars.seconds}}"',
      ),
      { "p.csv": CSV },
    );
    expect(checked.diagnostics.map((d) => d.message)).toContain(
      'duration: must be a number, got "{{input.vars.seconds}}"; {{input.vars.…}} and {{input.row.…}} fill text, so this field needs its own value',
    );
  });
});
