import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";

/** Refused text answers feed no dependant, in every text format, end to end. */

const SORRY = "I'm sorry, but I can't help with that request.";

/** A text job of each format asked about a forbidden mug, one answered, an image below each. */
function formatsManifest(outputDir: string): string {
  const settings = fastSettings(
    outputDir,
    'gateway: { messages_version: { header: acme-version, value: "2023-06-01" } }\n',
  );
  const texts = [
    `  - id: chat
    endpoint: chat
    model: acme-5
    matrix: { stream: [false, true] }
    messages: [{ role: user, content: "One-line caption for a forbidden mug photo" }]`,
    `  - id: responses
    endpoint: responses
    model: acme-5
    input: [{ role: user, content: [{ type: input_text, text: "Describe a forbidden mug" }] }]`,
    `  - id: messages
    endpoint: messages
    model: acme-sonnet
    max_tokens: 100
    messages: [{ role: user, content: "Write one tagline for a forbidden mug" }]`,
    `  - id: native
    endpoint: native
    model: acme-2.5-flash
    contents: [{ role: user, parts: [{ text: "Caption a forbidden mug" }] }]`,
    `  - id: answered
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "One-line caption for a ceramic mug photo" }]`,
  ];
  const images = ["chat", "responses", "messages", "native", "answered"].map(
    (id) => `  - { id: image-${id}, model: acme-image-2, from: ${id}, prompt: "{{input.text}}" }`,
  );
  return `${settings}name: refusals\njobs:\n${[...texts, ...images].join("\n")}\n`;
}

async function byLabel(scope: RunScope) {
  return new Map((await scope.tasks()).map((task) => [task.label, task]));
}

describe("refused text answers", () => {
  it("a refusal in any text format feeds no image: the dependants are skipped saying the upstream refused, in the summary and gwrun status", async () => {
    await withRun({ seed: "refusals" }, async (scope) => {
      const manifest = scope.write("refusals.yaml", formatsManifest(scope.outputDir));
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code).toBe(1);
      const tasks = await byLabel(scope);

      // Each refusal fails its task with the model's words and the vendor's finish reason.
      const refusals: Record<string, string> = {
        "chat-e1": `refused: ${SORRY} (finish reason stop)`,
        "chat-e2": `refused: ${SORRY} (finish reason stop)`,
        responses: `refused: ${SORRY} (finish reason stop)`,
        messages: `refused: ${SORRY} (finish reason refusal)`,
        native: "refused: no text (finish reason SAFETY)",
      };
      for (const [label, reason] of Object.entries(refusals)) {
        expect([tasks.get(label)?.state, tasks.get(label)?.reason], label).toEqual([
          "failed",
          reason,
        ]);
        const job = label.replace(/-e\d$/, "");
        const image = tasks.get(`image-${job}-of-${label}`);
        expect([image?.state, image?.reason], label).toEqual([
          "skipped",
          `upstream ${label} ${reason}`,
        ]);
        expect(image?.task_id, label).toBeNull();
      }
      // The answered caption made its image, with the caption as its prompt; nothing else was sent.
      const answered = tasks.get("answered");
      const caption = readFileSync(answered?.outputs[0]?.path ?? "", "utf8").trim();
      const image = tasks.get("image-answered-of-answered");
      expect([answered?.state, image?.state]).toEqual(["done", "done"]);
      expect(JSON.parse(image?.request ?? "{}").prompt).toBe(caption);
      expect(scope.sim.counters().submits.accepted).toBe(1);

      // The summary names the refusal below each skipped image.
      expect(run.stderr).toMatch(/run 1 failed after [^:]+: 12 tasks, 2 done, 5 failed, 5 skipped/);
      expect(run.stderr).toContain(`3 × refused: ${SORRY} (finish reason stop)`);
      // (The summary lists the five most frequent reasons.)
      expect(run.stderr).toMatch(/1 × upstream (chat-e\d|responses|messages) refused: I'm sorry/);
      expect(run.stderr).toMatch(/next: gwrun retry --failed 1 /);

      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toContain(`    chat-e2 failed: refused: ${SORRY} (finish reason stop)`);
      expect(status).toContain(
        `    image-chat-of-chat-e2 skipped: upstream chat-e2 refused: ${SORRY} (finish reason stop)`,
      );
      expect(status).toContain(
        "    image-native-of-native skipped: upstream native refused: no text (finish reason SAFETY)",
      );
      // The record keeps the vendor's finish reason beside the refusal.
      expect(status).toMatch(
        new RegExp(`chat-e1 \\(chat; finish stop; .*\\):\\n {6}refused: ${SORRY}`),
      );
      const store = await scope.open();
      try {
        const stored = async (label: string) => store.textAnswer(tasks.get(label)?.key ?? "");
        expect(await stored("chat-e2")).toMatchObject({ finish_reason: "stop", refusal: SORRY });
        expect(await stored("messages")).toMatchObject({
          finish_reason: "refusal",
          refusal: SORRY,
        });
        expect(await stored("native")).toMatchObject({ finish_reason: "SAFETY", text: "" });
      } finally {
        await store.close();
      }
      const record = JSON.parse(
        readFileSync(path.join(scope.outputDir, "chat", "chat-e1.json"), "utf8"),
      );
      expect(record).toMatchObject({ finish_reason: "stop", refusal: SORRY, text: "" });
    });
  });

  it("gwrun retry --failed asks a refused caption again, and its image is made from the new answer", async () => {
    // Half the text calls are declined, decided per call: this seed refuses the first two asks
    // of this caption and answers the third.
    await withRun({ seed: "asks-again-16", faults: { textRefusalRate: 0.5 } }, async (scope) => {
      const manifest = scope.write(
        "captions.yaml",
        `${fastSettings(scope.outputDir)}name: captions
jobs:
  - id: caption
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "One-line caption for a ceramic mug photo" }]
  - id: image
    model: acme-image-2
    from: caption
    prompt: "{{input.text}}"
`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code).toBe(1);
      expect(first.stderr).toContain(`1 × upstream caption refused: ${SORRY}`);
      expect(scope.sim.counters().submits.accepted).toBe(0);

      // Refused again: the same stand-in is skipped again, and still nothing is paid for.
      const again = await scope.gwrun(["retry", "--failed"]).done;
      expect(again.stderr).toMatch(/of run 1 back to pending/);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`1 × upstream caption refused: ${SORRY}`);
      expect(scope.sim.counters().submits.accepted).toBe(0);

      const answered = await scope.gwrun(["retry", "--failed"]).done;
      expect(answered.code).toBe(0);
      expect(scope.sim.counters().text.calls).toBe(3);

      const tasks = await byLabel(scope);
      const caption = tasks.get("caption");
      const text = readFileSync(caption?.outputs[0]?.path ?? "", "utf8").trim();
      expect(caption?.state).toBe("done");
      expect(text).not.toContain("sorry");
      const image = tasks.get("image-of-caption");
      expect(image?.state).toBe("done");
      expect(JSON.parse(image?.request ?? "{}").prompt).toBe(text);
      // The skipped stand-in made way for the real image; one image was paid for.
      expect([...tasks.values()].filter((task) => task.job_id === "image")).toHaveLength(1);
      expect(scope.sim.counters().submits.accepted).toBe(1);
      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toMatch(/2 tasks: 2 done/);
    });
  });
});
