import { describe, expect, it } from "vitest";
import type { CheckedJob } from "../../../src/families/index.js";
import { bindInputs, type UpstreamOutput } from "../../../src/plan/bind-inputs.js";
import { dependantTasks, standInsOf } from "../../../src/plan/tasks.js";
import { checkInline } from "../../helpers/manifest.js";

/** The checked `from:` jobs of a manifest whose first job is `shots` (images) or `notes` (text). */
async function templatesOf(jobs: string): Promise<Map<string, CheckedJob>> {
  const checked = await checkInline(`
version: 1
jobs:
  - { id: shots, model: acme-image-2, prompt: a mug }
  - { id: notes, endpoint: chat, model: acme-5, messages: [{ role: user, content: a caption }] }
${jobs}`);
  expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return new Map(checked.jobs.map((job) => [job.job.spec.id, job]));
}

function image(url: string | null): UpstreamOutput {
  return {
    label: "shots",
    kind: "media",
    url,
    dataUri: () => "data:image/png;base64,AAAA",
    text: () => "not text",
  };
}

const note: UpstreamOutput = {
  label: "notes",
  kind: "text",
  url: null,
  dataUri: () => "data:text/plain;base64,AAAA",
  text: () => "A blue mug at dawn",
};

function get(templates: Map<string, CheckedJob>, id: string): CheckedJob {
  const job = templates.get(id);
  if (job === undefined) throw new Error(`no job ${id}`);
  return job;
}

describe("binding an upstream output into a dependant", () => {
  it("sends the upstream link while it is valid", async () => {
    const templates = await templatesOf(`
  - { id: clip, model: acme-video-2.3-Fast, from: shots, first_frame_image: "{{input.url}}", prompt: "[推进] in" }
`);
    const bound = bindInputs(get(templates, "clip"), image("https://cdn.example/a.png"));
    expect(bound).toEqual({
      body: expect.objectContaining({ first_frame_image: "https://cdn.example/a.png" }),
      problem: null,
    });
  });

  it("sends the downloaded file as a Data URI once the link has expired, where the family takes one", async () => {
    const templates = await templatesOf(`
  - { id: clip, model: acme-video-2.3-Fast, from: shots, first_frame_image: "{{input.url}}", prompt: "[推进] in" }
  - { id: edit, model: acme-image-2, from: shots, prompt: a variant, image_urls: ["{{input.url}}"] }
`);
    expect(bindInputs(get(templates, "clip"), image(null))).toEqual({
      body: expect.objectContaining({ first_frame_image: "data:image/png;base64,AAAA" }),
      problem: null,
    });
    expect(bindInputs(get(templates, "edit"), image(null)).body.image_urls).toEqual([
      "data:image/png;base64,AAAA",
    ]);
  });

  it("fails a dependant whose family takes only URLs once the link has expired, saying why", async () => {
    const templates = await templatesOf(`
  - id: clip
    model: acme-v4-fast
    from: shots
    first_frame_image: "{{input.url}}"
    prompt: a slow orbit
    resolution: 720p
    duration: 5
`);
    const bound = bindInputs(get(templates, "clip"), image(null));
    expect(bound.problem).toMatch(
      /^first_frame_image: the link of shots has expired and video family 3 accepts only http\(s\) URLs there, so its file cannot be sent as a Data URI/,
    );
    // With a live link the same job is fine.
    expect(bindInputs(get(templates, "clip"), image("https://cdn.example/a.png")).problem).toBe(
      null,
    );
  });

  it("puts a text answer into {{input.text}}, and refuses an output of the other kind", async () => {
    const templates = await templatesOf(`
  - { id: pic, model: acme-image-2, from: notes, prompt: "{{input.text}}, soft light" }
  - { id: edit, model: acme-image-2, from: shots, prompt: a mug, image_urls: ["{{input.url}}"] }
`);
    expect(bindInputs(get(templates, "pic"), note)).toEqual({
      body: expect.objectContaining({ prompt: "A blue mug at dawn, soft light" }),
      problem: null,
    });
    // Validation catches these in a manifest; a passthrough job or a changed upstream may not.
    expect(bindInputs(get(templates, "edit"), note).problem).toBe(
      "image_urls[0]: {{input.url}} needs an image or clip, but notes produced text (use {{input.text}})",
    );
    expect(
      bindInputs(get(templates, "pic"), { ...image("https://cdn.example/a.png"), label: "notes" })
        .problem,
    ).toBe(
      "prompt: {{input.text}} needs a text answer, but notes produced a media file (use {{input.url}})",
    );
  });

  it("keys a dependant by its upstream output, not by the link or file it was sent", async () => {
    const templates = await templatesOf(`
  - { id: clip, model: acme-video-2.3-Fast, from: shots, first_frame_image: "{{input.url}}", prompt: "[推进] in", repeat: 2 }
`);
    const upstream = { key: "up", label: "shots", outputIndex: 0, outputs: 1 };
    const withLink = dependantTasks([get(templates, "clip")], upstream, image("https://a/1.png"));
    const withFile = dependantTasks([get(templates, "clip")], upstream, image(null));
    expect(withLink.map((d) => d.task.key)).toEqual(withFile.map((d) => d.task.key));
    expect(withLink.map((d) => d.task.label)).toEqual(["clip-r1-of-shots", "clip-r2-of-shots"]);
    const other = dependantTasks(
      [get(templates, "clip")],
      { ...upstream, outputIndex: 1, outputs: 2 },
      image("https://a/1.png"),
    );
    expect(other.map((d) => d.task.key)).not.toContain(withLink[0]?.task.key);
  });

  it("records one skipped stand-in per template and repeat, down the chain, keyed apart from real dependants", async () => {
    const templates = await templatesOf(`
  - { id: clip, model: acme-video-2.3-Fast, from: shots, first_frame_image: "{{input.url}}", prompt: "[推进] in", repeat: 2 }
  - { id: still, model: acme-image-2, from: clip, prompt: a still, image_urls: ["{{input.url}}"] }
`);
    const byUpstream = new Map([
      ["shots", [get(templates, "clip")]],
      ["clip", [get(templates, "still")]],
    ]);
    const skipped = standInsOf(byUpstream, { key: "up", label: "shots", jobId: "shots" });
    expect(skipped.map((job) => job.label)).toEqual([
      "clip-r1-of-shots",
      "still-of-clip-r1-of-shots",
      "clip-r2-of-shots",
      "still-of-clip-r2-of-shots",
    ]);
    expect(skipped.every((job) => job.placeholder === true)).toBe(true);
    const real = dependantTasks(
      [get(templates, "clip")],
      { key: "up", label: "shots", outputIndex: 0, outputs: 1 },
      image("https://a/1.png"),
    );
    for (const { task } of real) expect(skipped.map((s) => s.key)).not.toContain(task.key);
  });
});
