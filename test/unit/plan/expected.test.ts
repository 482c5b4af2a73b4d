import { describe, expect, it } from "vitest";
import {
  type AwaitingRow,
  awaitingTotal,
  awaitingUpstream,
  type DependantRule,
} from "../../../src/plan/index.js";

/** The dependants a run is still to make, counted as the plan counts them. */

const rule = (job: string, from: string, tasks: number): DependantRule => ({
  job,
  from,
  family: "video-1",
  lane: "video",
  tasks,
  outputs: { count: 1, exact: true },
  cost: null,
});
/** A clip per picture, two stills per clip. */
const RULES = [rule("clip", "shots", 1), rule("still", "clip", 2)];

const row = (key: string, job: string, state: string, extra: Partial<AwaitingRow> = {}) =>
  ({
    key,
    job_id: job,
    family: "image-a",
    request: JSON.stringify({ model: "acme-image-2", prompt: "a mug" }),
    state,
    upstream_key: null,
    placeholder: 0,
    ...extra,
  }) as AwaitingRow;

describe("tasks awaiting their upstream", () => {
  it("counts down the chain for each upstream with no dependant yet, none for a failed one", () => {
    const awaiting = awaitingUpstream(
      [
        row("s1", "shots", "processing"),
        // Its clip is recorded (pending): only the clip's stills are still to come.
        row("s2", "shots", "done"),
        row("c2", "clip", "pending", { upstream_key: "s2", family: "video-1" }),
        // Failed: its dependants are recorded skipped, not awaited.
        row("s3", "shots", "failed"),
        // Retried: the stand-in left from its failure is not its dependant.
        row("s4", "shots", "submitted"),
        row("p4", "clip", "pending", { upstream_key: "s4", placeholder: 1 }),
      ],
      RULES,
    );
    expect(Object.fromEntries([...awaiting].map(([job, { tasks }]) => [job, tasks]))).toEqual({
      clip: 2,
      still: 6,
    });
    expect(awaitingTotal(awaiting)).toEqual({ tasks: 8, exact: true });
  });

  it("counts the dependants of each job still to come, when another job's are already made", () => {
    const rules = [...RULES, rule("caption", "shots", 1)];
    const awaiting = awaitingUpstream(
      [
        row("s1", "shots", "done"),
        // s1's clip is made, its caption is not: the caption is still to come.
        row("c1", "clip", "done", { upstream_key: "s1", family: "video-1" }),
        row("s2", "shots", "done"),
        row("k2", "caption", "done", { upstream_key: "s2", family: null }),
      ],
      rules,
    );
    expect(Object.fromEntries([...awaiting].map(([job, { tasks }]) => [job, tasks]))).toEqual({
      caption: 1,
      clip: 1,
      still: 4,
    });
  });

  it("an upstream whose output count is not known makes the count an upper bound", () => {
    const passthrough = row("s1", "shots", "pending", { family: null });
    expect(awaitingTotal(awaitingUpstream([passthrough], RULES))).toEqual({
      tasks: 3,
      exact: false,
    });
    expect(awaitingUpstream([passthrough], []).size).toBe(0);
  });
});
