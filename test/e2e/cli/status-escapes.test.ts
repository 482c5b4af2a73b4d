import { describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/index.js";
import { fastSettings, withRun } from "../../helpers/run.js";

/** An OSC 8 link, an OSC title change, CSI screen and colour commands, a C1 CSI, a bidi override. */
const HOSTILE =
  "\u001b]8;;https://evil.example/\u001b\\Click here\u001b]8;;\u001b\\ \u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m \u009b1;1Hmoved \u202eevil";
const SHOWN = "Click here red moved evil";

/** Any escape, control (but the line feed) or bidirectional override. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("gwrun status prints others' words safely", () => {
  it("a text answer, refusal, tool call and review note with terminal escapes come out neutralised", async () => {
    await withRun({ seed: "escapes" }, async (scope) => {
      const manifest = scope.write(
        "text.yaml",
        `${fastSettings(scope.outputDir)}name: text
jobs:
  - id: caption
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "One-line caption for a ceramic mug photo" }]
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      // What a hostile model could have answered, and a note pasted from one.
      const store = openStore(scope.db);
      try {
        const [task] = await store.tasksOf(1);
        store.db
          .prepare(
            "UPDATE text_answers SET text = ?, refusal = ?, finish_reason = ?, tool_calls = ? WHERE job_key = ?",
          )
          .run(
            `first line\n${HOSTILE}\nlast line`,
            `no: ${HOSTILE}`,
            `stop\u001b[5m`,
            JSON.stringify([
              { id: "c1", name: `look\u001b]0;up\u0007`, arguments: { q: HOSTILE } },
            ]),
            task?.key,
          );
        expect(
          await store.recordReview(
            { key: task?.key ?? "", index: 0, decision: "rejected", note: `see ${HOSTILE}` },
            Date.now(),
          ),
        ).toBe(true);
      } finally {
        await store.close();
      }

      const status = await scope.gwrun(["status"]).done;
      expect(status.code).toBe(0);
      expect(status.stdout).not.toMatch(UNSAFE);
      const lines = status.stdout.split("\n");
      expect(lines).toContain(
        `      asks for look(${JSON.stringify({ q: HOSTILE }).replace(/\u009b1;1H|\u202e/g, "")})`,
      );
      expect(lines.find((line) => line.startsWith("    caption ("))).toMatch(/; finish stop;/);
      expect(lines).toContain(`      refused: no: ${SHOWN}`);
      expect(lines).toEqual(
        expect.arrayContaining(["      first line", `      ${SHOWN}`, "      last line"]),
      );
      expect(lines).toContain(`    caption output 1: see ${SHOWN}`);

      // Scripts still read every word as it was, and the JSON prints safely too.
      const json = await scope.gwrun(["status", "--json"]).done;
      expect(json.stdout).not.toMatch(UNSAFE);
      const parsed = JSON.parse(json.stdout) as {
        texts: { text: string; refusal: string }[];
        reviews: { note: string }[];
      };
      expect(parsed.texts[0]?.text).toBe(`first line\n${HOSTILE}\nlast line`);
      expect(parsed.reviews[0]?.note).toBe(`see ${HOSTILE}`);
    });
  });
});
