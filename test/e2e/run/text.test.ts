import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMENTARY_TEXT } from "../../../src/sim/text/responses.js";
import { openStore } from "../../../src/store/index.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { skuTool, weatherTool } from "../../helpers/text-tools.js";

/** Every text format, each whole and streamed (a matrix over `stream`), two asking for a tool. */
function textManifest(outputDir: string): string {
  const settings = fastSettings(
    outputDir,
    'gateway: { messages_version: { header: acme-version, value: "2023-06-01" } }\n',
  );
  return `${settings}name: texts
jobs:
  - id: chat
    endpoint: chat
    model: acme-5
    matrix: { stream: [false, true] }
    messages: [{ role: user, content: "One-line caption for a ceramic mug photo" }]
    n: 2
  - id: responses
    endpoint: responses
    model: acme-5
    matrix: { stream: [false, true] }
    input: [{ role: user, content: [{ type: input_text, text: "Describe a ceramic mug" }] }]
  - id: weather
    endpoint: responses
    model: acme-5
    matrix: { stream: [false, true] }
    input: "Call get_weather for Lyon, the next 3 days"
    tools: [${JSON.stringify(weatherTool)}]
  - id: messages
    endpoint: messages
    model: acme-sonnet
    matrix: { stream: [false, true] }
    max_tokens: 100
    messages: [{ role: user, content: "Write one tagline for a ceramic mug" }]
  - id: sku
    endpoint: messages
    model: acme-haiku
    matrix: { stream: [false, true] }
    max_tokens: 100
    messages: [{ role: user, content: "Use lookup_sku to find MUG-014" }]
    tools: [${JSON.stringify(skuTool)}]
  - id: native
    endpoint: native
    model: acme-2.5-flash
    matrix: { stream: [false, true] }
    contents: [{ role: user, parts: [{ text: "Three care tips for a stoneware mug" }] }]
`;
}

interface Event {
  type: string;
  label?: string;
  chars?: number;
}

async function answersByLabel(scope: RunScope) {
  const store = openStore(scope.db);
  try {
    const answers = [];
    for (const job of await scope.tasks())
      answers.push([job.label, { job, answer: await store.textAnswer(job.key) }] as const);
    return new Map(answers);
  } finally {
    await store.close();
  }
}

function read(file: string): string {
  return readFileSync(file, "utf8");
}

describe("text jobs in a run", () => {
  it("answers every format whole and streamed, storing text, finish reason, usage and tool calls", async () => {
    await withRun({ seed: "texts" }, async (scope) => {
      const manifest = scope.write("texts.yaml", textManifest(scope.outputDir));
      const result = await scope.gwrun(["run", manifest, "--json"]).done;
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const events = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Event);
      const answers = await answersByLabel(scope);
      expect([...answers.keys()].sort()).toEqual(
        ["chat", "responses", "weather", "messages", "sku", "native"]
          .flatMap((id) => [`${id}-e1`, `${id}-e2`])
          .sort(),
      );
      expect(scope.sim.counters().text).toEqual({ calls: 12, streams: 6 });

      for (const [label, { job, answer }] of answers) {
        expect(job.state, label).toBe("done");
        expect(answer, label).toBeDefined();
        if (answer === undefined) continue;
        const streamed = label.endsWith("-e2");
        expect(answer.streamed, label).toBe(streamed ? 1 : 0);
        // Streamed answers report progress as they arrive; whole ones do not.
        const progress = events.filter((e) => e.type === "text:progress" && e.label === label);
        const tool = label.startsWith("weather") || label.startsWith("sku");
        if (streamed && !tool) {
          expect(progress.length, label).toBeGreaterThan(1);
          expect(progress.at(-1)?.chars, label).toBe(answer.text.length);
        } else if (!streamed) {
          expect(progress, label).toEqual([]);
        }
        // The first choice is the .txt; the whole answer is the .json beside it.
        const dir = path.join(scope.outputDir, job.job_id);
        const texts = job.outputs.map((output) => read(output.path ?? ""));
        expect(texts[0], label).toBe(`${answer.text}\n`);
        const record = JSON.parse(read(path.join(dir, `${label}.json`)));
        expect(record.finish_reason, label).toBe(answer.finish_reason);
        expect(record.usage, label).toEqual(JSON.parse(answer.usage ?? "null"));
        expect(record.tool_calls, label).toEqual(JSON.parse(answer.tool_calls));
        expect(record.response, label).toBeTypeOf("object");
      }

      const get = (label: string) => {
        const entry = answers.get(label);
        if (entry?.answer === undefined) throw new Error(`no answer for ${label}`);
        return { ...entry.answer, outputs: entry.job.outputs };
      };
      for (const id of ["chat", "responses", "messages", "native"]) {
        // Streaming changes how the answer travels, not what it says.
        expect(get(`${id}-e2`).text).toBe(get(`${id}-e1`).text);
        expect(get(`${id}-e1`).text.length).toBeGreaterThan(10);
      }
      // chat's n: 2 gives two alternatives, each an output of its own.
      for (const label of ["chat-e1", "chat-e2"]) {
        const chat = get(label);
        expect(chat.choices).toBe(2);
        expect(chat.outputs.map((o) => path.basename(o.path ?? ""))).toEqual([
          `${label}-1.txt`,
          `${label}-2.txt`,
        ]);
        const [first, second] = chat.outputs.map((o) => read(o.path ?? ""));
        expect(first).not.toBe(second);
      }
      // Finish reasons and usage in each format's own words.
      expect(get("chat-e1")).toMatchObject({ format: "chat", finish_reason: "stop" });
      expect(Object.keys(JSON.parse(get("chat-e2").usage ?? "{}")).sort()).toEqual([
        "completion_tokens",
        "prompt_tokens",
        "total_tokens",
      ]);
      expect(get("responses-e2")).toMatchObject({ format: "responses", finish_reason: "stop" });
      expect(get("messages-e2")).toMatchObject({ format: "messages", finish_reason: "end_turn" });
      expect(JSON.parse(get("messages-e2").usage ?? "{}")).toMatchObject({
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
      });
      expect(get("native-e2")).toMatchObject({ format: "native", finish_reason: "STOP" });
      expect(JSON.parse(get("native-e1").usage ?? "{}")).toMatchObject({
        promptTokenCount: expect.any(Number),
        candidatesTokenCount: expect.any(Number),
      });
      // Tool calls, whole and streamed.
      for (const label of ["weather-e1", "weather-e2"]) {
        const weather = get(label);
        expect(weather.finish_reason, label).toBe("tool_calls");
        const [call] = JSON.parse(weather.tool_calls);
        expect(call, label).toMatchObject({
          name: "get_weather",
          arguments: { city: expect.any(String), days: expect.any(Number) },
        });
      }
      for (const label of ["sku-e1", "sku-e2"]) {
        const sku = get(label);
        expect(sku.finish_reason, label).toBe("tool_use");
        const [call] = JSON.parse(sku.tool_calls);
        expect(call, label).toMatchObject({
          name: "lookup_sku",
          arguments: { sku: expect.any(String) },
        });
      }

      const status = await scope.gwrun(["status"]).done;
      expect(status.stdout).toContain("text answers:");
      expect(status.stdout).toMatch(
        /weather-e1 \(responses; .*\):\n {6}asks for get_weather\(\{"city":/,
      );
      // the answers in full, under their label.
      expect(status.stdout).toMatch(
        /messages-e2 \(messages; streamed; finish end_turn; input_tokens \d+.*\):\n {6}\S/,
      );
      expect(status.stdout).toContain(`      ${get("messages-e2").text.split("\n")[0]}`);

      const json = JSON.parse((await scope.gwrun(["status", "--json"]).done).stdout);
      expect(json.texts).toHaveLength(12);
      // --json never shortens an answer.
      for (const text of json.texts) expect(text.text).toBe(get(text.label).text);
      expect(json.texts.find((text: { label: string }) => text.label === "sku-e2")).toMatchObject({
        format: "messages",
        streamed: true,
        finish_reason: "tool_use",
        tool_calls: [{ name: "lookup_sku" }],
      });

      // A second run pays for nothing: the answers are on disk and recorded.
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code).toBe(0);
      expect(scope.sim.counters().text.calls).toBe(12);
    });
  });

  it("waits out rate limits on text calls without using up attempts", async () => {
    await withRun({ seed: "text-429", rateLimit: { perSecond: 20, burst: 1 } }, async (scope) => {
      const settings = fastSettings(scope.outputDir)
        .replace("attempts: 6", "attempts: 1")
        .replace("submit_rate: 500/s", "submit_rate: 200/s");
      const manifest = scope.write(
        "burst.yaml",
        `${settings}name: burst
jobs:
  - id: lines
    endpoint: chat
    model: acme-5
    matrix: { n: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] }
    messages: [{ role: user, content: "A caption, take {{n}}" }]
    stream: false
`,
      );
      const result = await scope.gwrun(["run", manifest, "--json"]).done;
      expect(result.code).toBe(0);
      expect(scope.sim.counters().errors["429"] ?? 0).toBeGreaterThan(0);
      expect(result.stdout).toContain('"type":"gateway:rate-limited"');
      expect((await scope.tasks()).every((job) => job.state === "done")).toBe(true);
      expect(scope.sim.counters().text.calls).toBe(12);
    });
  });
});

describe("a Responses answer in two phases", () => {
  it("a streamed commentary message then the final answer: the .txt and {{input.text}} hold the answer, the sidecar the commentary", async () => {
    await withRun({ seed: "phases", faults: { commentaryRate: 1 } }, async (scope) => {
      const manifest = scope.write(
        "phases.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - id: look
    endpoint: responses
    model: acme-5
    stream: true
    input: [{ role: user, content: [{ type: input_text, text: "Suggest a ceramic mug" }] }]
  - id: echo
    endpoint: chat
    model: acme-5
    from: look
    stream: false
    messages: [{ role: user, content: "Shorten: {{input.text}}" }]
`,
      );
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code, run.stderr).toBe(0);
      expect(scope.sim.counters().text.streams).toBe(1);
      const written = read(path.join(scope.outputDir, "look", "look.txt"));
      const sidecar = JSON.parse(read(path.join(scope.outputDir, "look", "look.json")));
      expect(sidecar.commentary).toEqual([COMMENTARY_TEXT]);
      expect(sidecar.streamed).toBe(true);
      expect(written).not.toContain(COMMENTARY_TEXT);
      expect(written.trim()).not.toBe("");
      expect(written).toBe(`${sidecar.text}\n`);
      // The final answer's own message, as the gateway sent it.
      const final = sidecar.response.output.find(
        (item: { phase?: string }) => item.phase === "final_answer",
      );
      expect(final.content[0].text).toBe(sidecar.text);
      const echo = (await scope.tasks()).find((task) => task.job_id === "echo");
      const asked = JSON.parse(echo?.request ?? "{}").messages[0].content;
      expect(asked).toBe(`Shorten: ${sidecar.text}`);
    });
  });
});
