import { describe, expect, it } from "vitest";
import {
  dropPlaceholders,
  type NewJob,
  rebindPending,
  saveTextAnswer,
  textAnswer,
  textAnswersOf,
} from "../../src/store/index.js";
import { openTestStore } from "../helpers/store.js";

function job(key: string, upstreamKey: string | null, placeholder = false): NewJob {
  return {
    key,
    jobId: key,
    label: key,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: "{}",
    upstreamKey,
    estimatedCost: null,
    placeholder,
  };
}

describe("dependant bookkeeping in the store", () => {
  it("drops an upstream's stand-ins down the chain, and nothing else", () => {
    const { store, runId } = openTestStore();
    store.addJobs(
      runId,
      [
        job("up", null),
        job("real", "up"),
        job("stand-in", "up", true),
        job("below", "stand-in", true),
        job("other", "elsewhere", true),
      ],
      1,
    );
    store.move("stand-in", "pending", "skipped", { reason: "upstream up failed: x" }, 2);
    expect(dropPlaceholders(store, "up")).toBe(2);
    expect(store.jobsOf(runId).map((row) => row.key)).toEqual(["up", "real", "other"]);
    expect(store.job("real")?.placeholder).toBe(0);
    store.close();
  });

  it("binds a request afresh only while the job is pending and real", () => {
    const { store, runId } = openTestStore();
    store.addJobs(runId, [job("a", "up"), job("b", "up"), job("c", "up", true)], 1);
    store.move("b", "pending", "submitting", {}, 2);
    expect(rebindPending(store, "a", '{"url":"new"}')).toBe(true);
    expect(rebindPending(store, "a", '{"url":"new"}')).toBe(false);
    expect(rebindPending(store, "b", '{"url":"new"}')).toBe(false);
    expect(rebindPending(store, "c", '{"url":"new"}')).toBe(false);
    expect(store.job("a")?.request).toBe('{"url":"new"}');
    expect(store.job("b")?.request).toBe("{}");
    store.close();
  });

  it("keeps one answer per text job, replaced when the job is redone", () => {
    const { store, runId } = openTestStore();
    store.addJobs(runId, [job("t", null)], 1);
    const answer = {
      job_key: "t",
      format: "chat",
      model: "acme-5",
      text: "first",
      choices: 1,
      finish_reason: "stop",
      usage: '{"prompt_tokens":3}',
      tool_calls: "[]",
      streamed: 0,
      answered_at: 5,
    };
    saveTextAnswer(store, answer);
    saveTextAnswer(store, { ...answer, text: "second", streamed: 1 });
    expect(textAnswer(store, "t")).toMatchObject({ text: "second", streamed: 1 });
    expect(textAnswersOf(store, runId).map((row) => [row.label, row.text])).toEqual([
      ["t", "second"],
    ]);
    store.close();
  });
});
