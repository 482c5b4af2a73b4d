import { describe, expect, it } from "vitest";
import { scoreOf } from "../../../src/engine/judge-verdict.js";
import { type Candidate, selectBest } from "../../../src/manifest/select-best.js";

/** Ranking the takes of a group for `select: { best: K }`; people override the ranking. */

function take(id: string, score: number | null, review: Candidate["review"] = null): Candidate {
  return { id, score, review };
}

describe("selecting the best takes of a group", () => {
  it("selects the K highest scores", () => {
    const group = [take("a", 4), take("b", 9), take("c", 7)];
    expect([...selectBest(group, 1)]).toEqual(["b"]);
    expect(new Set(selectBest(group, 2))).toEqual(new Set(["b", "c"]));
  });

  it("breaks a tie by the order recorded: the first take wins", () => {
    expect([...selectBest([take("a", 6), take("b", 8), take("c", 8)], 1)]).toEqual(["b"]);
    expect([...selectBest([take("a", 5), take("b", 5), take("c", 5)], 1)]).toEqual(["a"]);
  });

  it("never selects a take without a score", () => {
    expect([...selectBest([take("a", null), take("b", null)], 1)]).toEqual([]);
    expect([...selectBest([take("a", null), take("b", 2)], 1)]).toEqual(["b"]);
  });

  it("a rejected winner hands its place to the next best", () => {
    const group = [take("a", 4), take("b", 9, "rejected"), take("c", 7)];
    expect([...selectBest(group, 1)]).toEqual(["c"]);
  });

  it("an approved take is selected and fills a place: with K = 1 the ranked winner gives way", () => {
    const group = [take("a", 4, "approved"), take("b", 9), take("c", 7)];
    expect([...selectBest(group, 1)]).toEqual(["a"]);
    expect(new Set(selectBest(group, 2))).toEqual(new Set(["a", "b"]));
  });

  it("keeps every take people approved, even beyond K", () => {
    const group = [take("a", 1, "approved"), take("b", 2, "approved"), take("c", 9)];
    expect(new Set(selectBest(group, 1))).toEqual(new Set(["a", "b"]));
  });
});

describe("reading a judge's score", () => {
  it.each([
    ["8/10. Sharp and whole.", 8],
    ["Score: 6.5 — a little dark", 6.5],
    ["0 out of 10: no mug", 0],
  ])("%j states %s", (answer, score) => {
    expect(scoreOf(answer, { score_at_least: 0 })).toBe(score);
  });

  it.each([
    ["A lovely picture."],
    ["11/10"],
    ["4/5, nearly"],
    ["Out of 10, I would give it a 3."],
  ])("%j states no score on the scale asked for", (answer) => {
    expect(scoreOf(answer, { score_at_least: 0 })).toBeUndefined();
  });

  it("a judge asked for a word gives no score, nor does a missing answer", () => {
    expect(scoreOf("Yes, 9/10", { starts_with: "yes" })).toBeUndefined();
    expect(scoreOf(null, { score_at_least: 0 })).toBeUndefined();
  });
});
