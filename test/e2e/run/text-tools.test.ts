import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/index.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { nativeTools, skuFunction, skuTool, weatherTool } from "../../helpers/text-tools.js";

/** Tool calls in every format, a refusal and a call cut off by the token limit, end to end. */
function manifest(outputDir: string): string {
  const settings = fastSettings(
    outputDir,
    'gateway: { messages_version: { header: acme-version, value: "2023-06-01" } }\n',
  );
  return `${settings}name: text-tools
jobs:
  - id: chat-tools
    endpoint: chat
    model: acme-5
    matrix: { stream: [false, true] }
    messages: [{ role: user, content: "Call get_weather for Lyon and lookup_sku for MUG-014" }]
    tools: ${JSON.stringify([weatherTool, skuFunction])}
  - id: native-tools
    endpoint: native
    model: acme-2.5-flash
    matrix: { stream: [false, true] }
    contents: [{ role: user, parts: [{ text: "Use lookup_sku to find MUG-014" }] }]
    tools: ${JSON.stringify(nativeTools)}
  - id: refused
    endpoint: chat
    model: acme-5
    stream: true
    messages: [{ role: user, content: "Caption a forbidden photo" }]
  - id: cut
    endpoint: messages
    model: acme-haiku
    stream: true
    max_tokens: 18
    messages: [{ role: user, content: "Please call lookup_sku for the blue mug" }]
    tools: [${JSON.stringify(skuTool)}]
`;
}

describe("text jobs with tools, refusals and cut-off answers", () => {
  it("items 2-4: records tool calls of every format, a refusal and a call cut off in <label>.json, the store and status", async () => {
    await withRun({ seed: "text-tools" }, async (scope) => {
      const file = scope.write("tools.yaml", manifest(scope.outputDir));
      const result = await scope.gwrun(["run", file, "--json"]).done;
      // the refusal fails its task (retry --failed asks again).
      expect(result.code).toBe(1);
      const jobs = new Map((await scope.tasks()).map((job) => [job.label, job]));
      for (const [label, job] of jobs)
        expect(job.state, label).toBe(label === "refused" ? "failed" : "done");
      expect(jobs.get("refused")?.reason).toMatch(/^refused: I'm sorry.* \(finish reason stop\)$/);
      const record = (label: string) => {
        const job = jobs.get(label);
        const dir = path.join(scope.outputDir, job?.job_id ?? "");
        return JSON.parse(readFileSync(path.join(dir, `${label}.json`), "utf8"));
      };
      const calls = (label: string) =>
        record(label).tool_calls.map((call: { name: string; arguments: object }) => [
          call.name,
          call.arguments,
        ]);

      for (const label of ["chat-tools-e1", "chat-tools-e2"]) {
        expect(record(label)).toMatchObject({ finish_reason: "tool_calls", refusal: null });
        expect(calls(label)).toEqual([
          ["get_weather", { city: "MUG-014", days: 1 }],
          ["lookup_sku", { sku: "MUG-014" }],
        ]);
      }
      for (const label of ["native-tools-e1", "native-tools-e2"]) {
        expect(record(label)).toMatchObject({ finish_reason: "STOP", text: "" });
        expect(calls(label)).toEqual([["lookup_sku", { sku: "MUG-014" }]]);
      }

      const refused = record("refused");
      // The vendor's finish reason, beside the refusal.
      expect(refused).toMatchObject({ text: "", finish_reason: "stop", tool_calls: [] });
      expect(refused.refusal).toMatch(/^I'm sorry/);
      // The .txt says why there is no answer.
      const txt = jobs.get("refused")?.outputs[0]?.path ?? "";
      expect(readFileSync(txt, "utf8")).toBe(`${refused.refusal}\n`);

      const cut = record("cut");
      expect(cut).toMatchObject({ finish_reason: "max_tokens", usage: { output_tokens: 18 } });
      expect(cut.text).toContain("lookup_sku");
      expect(cut.tool_calls).toEqual([
        {
          id: expect.stringMatching(/^toolu_/),
          name: "lookup_sku",
          arguments: {},
          partial: true,
          raw_arguments: expect.stringMatching(/^\{"sku/),
        },
      ]);

      const store = openStore(scope.db);
      try {
        const stored = await store.textAnswer(jobs.get("refused")?.key ?? "");
        expect(stored).toMatchObject({ refusal: refused.refusal, finish_reason: "stop" });
        const partial = await store.textAnswer(jobs.get("cut")?.key ?? "");
        expect(JSON.parse(partial?.tool_calls ?? "[]")).toEqual(cut.tool_calls);
      } finally {
        await store.close();
      }

      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toMatch(
        /refused \(chat; streamed; finish stop; .*\):\n {6}refused: I'm sorry/,
      );
      expect(status).toMatch(
        /cut \(messages; streamed; finish max_tokens; .*\):\n {6}asks for lookup_sku\(\{"sku.*… cut off by the token limit\)/,
      );
      expect(status).toMatch(/chat-tools-e2 \(chat; streamed; .*\):\n {6}asks for get_weather\(/);
      const json = JSON.parse((await scope.gwrun(["status", "--json"]).done).stdout);
      const texts = new Map(json.texts.map((text: { label: string }) => [text.label, text]));
      expect(texts.get("refused")).toMatchObject({ refusal: refused.refusal });
      expect(texts.get("cut")).toMatchObject({ tool_calls: [{ partial: true }] });
    });
  });
});
