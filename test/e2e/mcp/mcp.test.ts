import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { until } from "../../helpers/until.js";

/**
 * `gwrun mcp` started as a child process and driven by the SDK's own client over stdio, as
 * Claude Desktop or Cursor drive it: the demo manifest validated, planned, refused above the
 * ceiling and run within it to the end, its outputs listed relative to the project.
 */

const BIN = path.join(ROOT, "bin/gwrun.js");
const FAST = `poll: { first_after: 20ms, every: 20ms, batch_size: 50 }
retry: { attempts: 4, min_delay: 5ms, max_delay: 50ms }
`;

interface Answer {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** A project with the example manifests, polled at the simulator's pace. */
function project(): string {
  const dir = tempDir();
  cpSync(path.join(ROOT, "manifests"), path.join(dir, "manifests"), { recursive: true });
  const demo = path.join(dir, "manifests/campaign.yaml");
  const text = readFileSync(demo, "utf8")
    .replace(/^(poll|retry):.*\n/gm, "")
    .replace(/^version: 1\n/m, `version: 1\n${FAST}`);
  writeFileSync(demo, text);
  // A data/ folder marks the project: the store goes in it.
  writeFileSync(path.join(dir, ".git"), "");
  return dir;
}

async function connect(dir: string, flags: readonly string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...flags],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", GW_API_KEY: "sk-mcp-test-51c0ffee" },
    stderr: "pipe",
  });
  const client = new Client({ name: "gwrun-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as Answer;
}

function textOf(answer: Answer): string {
  return answer.content.map((part) => part.text ?? "").join("\n");
}

describe("gwrun mcp over stdio, driven by the SDK's client", () => {
  it("lists its tools; validates, plans, refuses above the ceiling or outside the project, and runs the demo to the end", async () => {
    const dir = project();
    writeFileSync(
      path.join(dir, "broken.yaml"),
      "version: 1\nname: broken\njobs:\n  - id: a\n    model: acme-image-2\n    prompt: hi\n    sizee: 1k\n",
    );
    const client = await connect(dir, ["--max-cost", "30"]);

    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual([
      "cost",
      "outputs",
      "plan",
      "retry",
      "run",
      "runs",
      "status",
      "validate",
    ]);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("plan")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("run")?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("run")?.inputSchema.required).toEqual(["manifest"]);

    const broken = await call(client, "validate", { manifest: "broken.yaml" });
    expect(broken.structuredContent?.valid).toBe(false);
    expect(textOf(broken)).toMatch(/broken\.yaml:7:5/);
    const inline = await call(client, "validate", { text: "version: 1\nname: x\njobs: 3\n" });
    expect(inline.structuredContent?.valid).toBe(false);
    expect(textOf(inline)).toMatch(/manifest-text\.yaml:3:\d+/);

    const planned = await call(client, "plan", { manifest: "manifests/campaign.yaml" });
    expect(planned.isError).toBeFalsy();
    expect(planned.structuredContent?.estimated_cost).toEqual(expect.any(Number));
    expect(textOf(planned)).toContain("estimated cost");

    const outside = await call(client, "run", { manifest: "../elsewhere.yaml" });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain("name a file inside it");

    const dear = readFileSync(path.join(dir, "manifests/campaign.yaml"), "utf8").replace(
      "max_cost: 25",
      "max_cost: 50",
    );
    writeFileSync(path.join(dir, "manifests/dear.yaml"), dear.replace("spring-campaign", "dear"));
    const refused = await call(client, "run", { manifest: "manifests/dear.yaml" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("limits.max_cost 50 is above 30");
    expect(existsSync(path.join(dir, "data/outputs/dear"))).toBe(false);

    const started = await call(client, "run", { manifest: "manifests/campaign.yaml" });
    expect(started.isError, textOf(started)).toBeFalsy();
    const run = started.structuredContent?.run;
    expect(run).toEqual(expect.any(Number));

    // The client goes away (its server is stopped); the run goes on, and a new client follows it.
    await client.close();
    const again = await connect(dir, ["--max-cost", "30"]);
    const done = await until(
      "the run to end",
      async () => {
        const status = await call(again, "status", { run });
        return status.structuredContent?.status !== "running" && status;
      },
      { timeoutMs: 50_000, everyMs: 200 },
    );
    expect(done.structuredContent).toMatchObject({ status: "done", exit_code: 0 });

    const listed = await call(again, "outputs", { run, thumbnails: true });
    const outputs = listed.structuredContent?.outputs as { file: string; sha256: string }[];
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) {
      expect(path.isAbsolute(output.file) || output.file.startsWith("..")).toBe(false);
      const bytes = readFileSync(path.join(dir, output.file));
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(output.sha256);
    }
    expect(listed.content.some((part) => part.type === "image")).toBe(true);
    // No answer carries the gateway's key.
    expect(JSON.stringify([broken, planned, started, done, listed])).not.toContain("51c0ffee");
  }, 45_000);

  it("runs nothing without --max-cost, and offers review and export only when allowed, inside the project", async () => {
    const dir = project();
    const bare = await connect(dir, []);
    const refused = await call(bare, "run", { manifest: "manifests/campaign.yaml" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("started without --max-cost");

    const allowed = await connect(dir, ["--max-cost", "1", "--allow-review", "--allow-export"]);
    const names = (await allowed.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["review", "export"]));
    writeFileSync(
      path.join(dir, "one.yaml"),
      `version: 1\nname: one\n${FAST}limits: { max_cost: 1 }\njobs:\n  - { id: hero, model: acme-image-2, prompt: "a mug", repeat: 2 }\n`,
    );
    const started = await call(allowed, "run", { manifest: "one.yaml" });
    const run = started.structuredContent?.run;
    await until("the run to end", async () => {
      const status = await call(allowed, "status", { run });
      return status.structuredContent?.status === "done";
    });
    const listed = await call(allowed, "outputs", { run });
    const [first] = listed.structuredContent?.outputs as { key: string; output: number }[];
    const reviewed = await call(allowed, "review", {
      key: first?.key,
      output: first?.output,
      decision: "approved",
      note: "sharp",
    });
    expect(reviewed.isError, textOf(reviewed)).toBeFalsy();
    const after = await call(allowed, "outputs", { run });
    const [decided] = after.structuredContent?.outputs as { review: unknown }[];
    expect(decided?.review).toEqual({ decision: "approved", note: "sharp", by: "agent" });
    // The folder's record says so at once, as after a decision in gwrun view.
    const lines = readFileSync(path.join(dir, "data/outputs/one/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { key: string; review: unknown; decision: unknown });
    expect(lines.find((line) => line.key === first?.key)).toMatchObject({
      review: { decision: "approved", by: "agent" },
      decision: { value: "approved", by: "agent" },
    });

    // The same records as resources.
    const templates = await allowed.listResourceTemplates();
    expect(templates.resourceTemplates.map((each) => each.uriTemplate)).toEqual(
      expect.arrayContaining(["gwrun://runs/{run}", "gwrun://runs/{run}/outputs"]),
    );
    const resource = await allowed.readResource({ uri: `gwrun://runs/${run}/outputs` });
    const [content] = resource.contents as { text: string }[];
    const read = JSON.parse(content?.text ?? "[]") as { file: string }[];
    expect(read.map((each) => each.file)).toEqual(
      (after.structuredContent?.outputs as { file: string }[]).map((each) => each.file),
    );

    const away = await call(allowed, "export", { dir: "../delivery" });
    expect(away.isError).toBe(true);
    expect(textOf(away)).toContain("is not a folder inside the project");
    const exported = await call(allowed, "export", { dir: "delivery" });
    expect(exported.isError, textOf(exported)).toBeFalsy();
    const files = exported.structuredContent?.files as string[];
    expect(files).toHaveLength(1);
    expect(existsSync(path.join(dir, "delivery", files[0] ?? ""))).toBe(true);
    expect(existsSync(path.join(dir, "delivery/review.csv"))).toBe(true);
  }, 45_000);
});
