import { describe, expect, it } from "vitest";
import { batched } from "../../../src/engine/batch.js";
import { settle } from "../../helpers/clock.js";

/** A batched doubler that records every array it is asked to write. */
function doubler() {
  const writes: number[][] = [];
  const write = batched(async (items: number[]) => {
    writes.push([...items]);
    return items.map((item) => item * 2);
  });
  return { write, writes };
}

describe("batched writes", () => {
  it("writes the calls made in one turn as one array, in call order", async () => {
    const { write, writes } = doubler();
    await Promise.all([write(3), write(1), write(2)]);
    await settle();
    expect(writes).toEqual([[3, 1, 2]]);
  });

  it("gives each caller its own result", async () => {
    const { write } = doubler();
    const results = await Promise.all([write(3), write(1), write(2)]);
    expect(results).toEqual([6, 2, 4]);
  });

  it("does not write before the turn is over", async () => {
    const { write, writes } = doubler();
    const pending = write(1);
    await Promise.resolve();
    expect(writes).toEqual([]);
    await pending;
    expect(writes).toEqual([[1]]);
  });

  it("takes a call made by a promise callback of the same turn into the same batch", async () => {
    const { write, writes } = doubler();
    const first = write(1);
    const second = Promise.resolve().then(() => write(2));
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2]]);
  });

  it("puts a call made after the flush into a new batch", async () => {
    const { write, writes } = doubler();
    await Promise.all([write(1), write(2)]);
    expect(await write(3)).toBe(6);
    expect(writes).toEqual([[1, 2], [3]]);
  });

  it("rejects every caller of a batch whose write fails, and writes the next batch anew", async () => {
    const failure = new Error("disk full");
    let calls = 0;
    const write = batched(async (items: string[]) => {
      calls += 1;
      if (calls === 1) throw failure;
      return items.map((item) => item.toUpperCase());
    });
    const outcomes = await Promise.allSettled([write("a"), write("b")]);
    expect(outcomes).toEqual([
      { status: "rejected", reason: failure },
      { status: "rejected", reason: failure },
    ]);
    expect(await write("c")).toBe("C");
  });
});
