import { describe, expect, it } from "vitest";
import type { NewJob } from "../../src/store/index.js";
import { openTestStore } from "../helpers/store.js";

const job = (key: string, jobId: string): NewJob => ({
  key,
  jobId,
  label: key,
  family: "image-a",
  lane: "image",
  endpoint: "/v1/images/generations",
  request: "{}",
  upstreamKey: null,
  estimatedCost: 0.1,
});

describe("store: what reports read", () => {
  it("reads a run's outputs with the tasks of each manifest job together, and its failures", () => {
    const { store, runId: run } = openTestStore();
    try {
      // A dependant recorded between two tasks of `hero`, as `from:` jobs are.
      store.addJobs(
        run,
        [job("hero-1", "hero"), job("teaser-1", "teaser"), job("hero-2", "hero")],
        1,
      );
      store.setOutputs("hero-1", [
        { url: null, expiresAt: null },
        { url: null, expiresAt: null },
      ]);
      store.markOutput("hero-1", 1, {
        state: "downloaded",
        path: "/out/hero/hero-1-2.png",
        check_state: "failed",
      });
      store.move("teaser-1", "pending", "skipped", { reason: "upstream failed" }, 2);

      const rows = [...store.reportRows(run)].map((row) => [row.job.key, row.output?.idx ?? null]);
      expect(rows).toEqual([
        ["hero-1", 0],
        ["hero-1", 1],
        ["hero-2", null],
        ["teaser-1", null],
      ]);
      expect([...store.failuresOf(run)].map((f) => [f.label, f.state, f.reason])).toEqual([
        ["teaser-1", "skipped", "upstream failed"],
      ]);
      expect(store.runSummary(run)).toEqual({
        states: { pending: 2, skipped: 1 },
        outputs: 1,
        spent: 0,
      });
    } finally {
      store.close();
    }
  });
});
