import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../src/core/random.js";
import { nextTakes, rootLabel } from "../../../src/plan/index.js";
import { taskRow } from "../../helpers/task-row.js";

const seeded = taskRow({
  key: "a",
  label: "hero-r1",
  family: "image-b",
  request: JSON.stringify({ model: "acme2.7-image-pro", prompt: "a mug", seed: 7 }),
  vars: '{"style":"clay"}',
  repeat_index: 0,
});
const plain = taskRow({
  key: "b",
  label: "plain",
  family: "image-a",
  request: JSON.stringify({ model: "acme-image-2", prompt: "a mug", size: "1:1" }),
});

describe("new takes after review", () => {
  it("makes the next take of each rejected task: a new key and label, a new seed only where the family takes one", () => {
    const takes = nextTakes([seeded, plain], new Set(["a", "b"]), seededRandom(1));
    expect(takes.map((take) => [take.label, take.take, take.vars])).toEqual([
      ["hero-r1-t2", 2, { style: "clay" }],
      ["plain-t2", 2, {}],
    ]);
    const [hero, again] = takes;
    expect(hero?.key).not.toBe("a");
    expect(JSON.parse(hero?.request ?? "").seed).not.toBe(7);
    expect(JSON.parse(again?.request ?? "")).toEqual(JSON.parse(plain.request));
    // The same request as take 1, yet another task: the take is part of its key.
    expect(again?.key).not.toBe("b");
  });

  it("counts only the latest take of a label: a task already retried is left alone", () => {
    const second = taskRow({ ...plain, key: "b2", label: "plain-t2", take: 2 });
    expect(rootLabel(second)).toBe("plain");
    expect(nextTakes([plain, second], new Set(["b"]), seededRandom(1))).toEqual([]);
    const third = nextTakes([plain, second], new Set(["b", "b2"]), seededRandom(1));
    expect(third.map((take) => [take.label, take.take])).toEqual([["plain-t3", 3]]);
  });
});
