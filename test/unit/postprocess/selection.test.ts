import { describe, expect, it } from "vitest";
import { selectionsOf } from "../../../src/postprocess/selection.js";
import type { ReportRow } from "../../../src/store/index.js";

/** Selections worked out from report rows: a group is decided once all of its takes are. */

function row(
  key: string,
  repeat: number,
  state: string,
  score: number | null,
  review: "approved" | "rejected" | null = null,
): ReportRow {
  const judge = score === null ? {} : { judge: { verdict: "pass", score } };
  return {
    task: {
      key,
      job_id: "hero",
      vars: "{}",
      upstream_key: null,
      repeat_index: repeat,
      take: 1,
      state,
    },
    output:
      state === "done"
        ? {
            idx: 0,
            path: `/out/${key}.png`,
            checks: JSON.stringify({ problems: [], ...judge, select: { best: 1 } }),
            review,
          }
        : null,
  } as unknown as ReportRow;
}

async function* rows(list: ReportRow[]): AsyncIterable<ReportRow> {
  yield* list;
}

describe("selections of a report's rows", () => {
  it("selects the best of a settled group, whatever order the rows come in", async () => {
    const selections = await selectionsOf(
      rows([row("c", 2, "done", 9), row("a", 0, "done", 9), row("b", 1, "done", 3)]),
    );
    expect(Object.fromEntries(selections)).toEqual({ "a:0": true, "b:0": false, "c:0": false });
  });

  it("selects none of a group while one of its takes is on its way", async () => {
    const selections = await selectionsOf(
      rows([row("a", 0, "done", 9), row("b", 1, "processing", null)]),
    );
    expect(Object.fromEntries(selections)).toEqual({ "a:0": false });
  });

  it("a group whose take failed is decided among the rest", async () => {
    const selections = await selectionsOf(
      rows([
        row("a", 0, "done", 2),
        row("b", 1, "failed", null),
        row("c", 2, "done", 5, "rejected"),
      ]),
    );
    expect(Object.fromEntries(selections)).toEqual({ "a:0": true, "c:0": false });
  });
});
