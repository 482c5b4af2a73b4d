import { describe, expect, it } from "vitest";
import { readVerdict } from "../../../src/engine/judge-verdict.js";

/** How a judge's answer is read; what cannot be read is never a pass. */

describe("reading a judge's answer", () => {
  const yesNo = { starts_with: "yes" };

  it.each([
    ["Yes. It shows a ceramic mug.", "pass", "It shows a ceramic mug."],
    ["**yes** — whole and clear", "pass", "whole and clear"],
    ["No, the handle is cut off.", "fail", "the handle is cut off."],
    ["NO", "fail", null],
  ])("%j with starts_with: yes is %s", (answer, verdict, reason) => {
    expect(readVerdict(answer, yesNo)).toEqual({ verdict, reason });
  });

  it.each([
    ["I'm sorry, but I can't help with that request."],
    ["Yesterday's light is lovely"],
    [""],
    ["Maybe."],
  ])("%j cannot be read: undecided, not passed", (answer) => {
    expect(readVerdict(answer, yesNo).verdict).toBe("undecided");
  });

  it("a fail word of the manifest's own is read as a fail", () => {
    expect(
      readVerdict("Reject: text in the corner", { starts_with: "approve", fails_with: "reject" }),
    ).toEqual({
      verdict: "fail",
      reason: "text in the corner",
    });
  });

  it.each([
    ["8/10. Whole and clear.", "pass", "score 8/10: Whole and clear.", 8],
    ["Score: 7 — fine", "pass", "score 7/10: fine", 7],
    ["3/10. The mug is cut off.", "fail", "score 3/10: The mug is cut off.", 3],
  ])("%j with score_at_least: 7 is %s, its score kept", (answer, verdict, reason, score) => {
    expect(readVerdict(answer, { score_at_least: 7 })).toEqual({ verdict, reason, score });
  });

  it.each([
    ["A lovely picture."],
    ["42/10"],
    ["-1"],
  ])("%j states no score within 0 to 10: undecided", (answer) => {
    expect(readVerdict(answer, { score_at_least: 7 }).verdict).toBe("undecided");
  });

  it.each([
    ["Out of 10, I would give it a 3.", { score_at_least: 7 }],
    ["I count 12 mugs, all fine", { score_at_least: 7 }],
    ["4/5, nearly", { score_at_least: 3 }],
    ["Yes-no: no, the handle is cut off", { starts_with: "yes" }],
    ["yes/no", { starts_with: "yes" }],
  ] as const)("%j is not a verdict in the form asked for: undecided, never a pass", (answer, pass) => {
    expect(readVerdict(answer, pass).verdict).toBe("undecided");
  });

  it.each([
    ["Score: 9, whole and sharp", "pass"],
    ["I'd give it 8 out of 10.", "pass"],
    ["The mug is fine; 7/10", "pass"],
    ["2 out of 10: blurred", "fail"],
  ])("reads %j: a score stated as the score, on the judge's scale (%s)", (answer, verdict) => {
    expect(readVerdict(answer, { score_at_least: 7 }).verdict).toBe(verdict);
  });
});
