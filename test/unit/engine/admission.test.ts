import { describe, expect, it } from "vitest";
import { Admission, type AdmissionLimits, capacityLane } from "../../../src/engine/admission.js";
import { taskRow } from "../../helpers/task-row.js";

const image = (key: string, estimated_cost: number | null = null) =>
  taskRow({ key, lane: "image", estimated_cost });
const video = (key: string, estimated_cost: number | null = null) =>
  taskRow({ key, lane: "video", estimated_cost });
const text = (key: string, estimated_cost: number | null = null) =>
  taskRow({ key, lane: "text", estimated_cost });

function admission(limits: Partial<AdmissionLimits> = {}): Admission {
  return new Admission({
    maxInFlight: 10,
    maxInFlightVideo: 10,
    maxCost: undefined,
    unknownCost: undefined,
    ...limits,
  });
}

/** Takes from `lane` until it gives no task; the keys taken, and what stopped it. */
function drain(queue: Admission, lane: "image" | "video") {
  const keys: string[] = [];
  for (;;) {
    const next = queue.take(lane);
    if (next === undefined || next === "budget") return { keys, stop: next };
    keys.push(next.key);
  }
}

describe("capacity lanes", () => {
  it("puts video tasks in the video lane and image and text tasks in the image lane", () => {
    expect(capacityLane({ lane: "video" })).toBe("video");
    expect(capacityLane({ lane: "image" })).toBe("image");
    expect(capacityLane({ lane: "text" })).toBe("image");
  });
});

describe("admission caps", () => {
  it("takes no more image tasks than maxInFlight", () => {
    const queue = admission({ maxInFlight: 2, maxInFlightVideo: 5 });
    for (const key of ["a", "b", "c"]) queue.enqueue(image(key));
    expect(drain(queue, "image")).toEqual({ keys: ["a", "b"], stop: undefined });
    expect(queue.inFlight("image")).toBe(2);
    expect(queue.pendingCount).toBe(1);
  });

  it("takes no more video tasks than maxInFlightVideo, whatever the image cap", () => {
    const queue = admission({ maxInFlight: 5, maxInFlightVideo: 1 });
    for (const key of ["v1", "v2"]) queue.enqueue(video(key));
    expect(drain(queue, "video")).toEqual({ keys: ["v1"], stop: undefined });
    expect(queue.inFlight("video")).toBe(1);
  });

  it("keeps the lanes' caps apart: a full video lane leaves image tasks free to go", () => {
    const queue = admission({ maxInFlight: 1, maxInFlightVideo: 1 });
    queue.enqueue(video("v1"));
    queue.enqueue(video("v2"));
    queue.enqueue(image("i1"));
    expect(drain(queue, "video").keys).toEqual(["v1"]);
    expect(drain(queue, "image").keys).toEqual(["i1"]);
    expect(queue.inFlight("video")).toBe(1);
    expect(queue.inFlight("image")).toBe(1);
  });

  it("counts text tasks against the image lane's cap", () => {
    const queue = admission({ maxInFlight: 2, maxInFlightVideo: 5 });
    queue.enqueue(text("t1"));
    queue.enqueue(image("i1"));
    queue.enqueue(text("t2"));
    expect(queue.take("video")).toBeUndefined();
    expect(drain(queue, "image")).toEqual({ keys: ["t1", "i1"], stop: undefined });
    expect(queue.inFlight("image")).toBe(2);
    expect(queue.inFlight("video")).toBe(0);
  });

  it("gives nothing from an empty lane", () => {
    const queue = admission();
    queue.enqueue(image("i1"));
    expect(queue.take("video")).toBeUndefined();
    expect(queue.inFlight("video")).toBe(0);
  });

  it("gives tasks in the order they were queued", () => {
    const queue = admission();
    for (const key of ["c", "a", "d", "b"]) queue.enqueue(image(key));
    expect(drain(queue, "image").keys).toEqual(["c", "a", "d", "b"]);
  });

  it("frees a slot when a task ends, so the next one can go", () => {
    const queue = admission({ maxInFlight: 1 });
    const first = image("a");
    queue.enqueue(first);
    queue.enqueue(image("b"));
    expect(queue.take("image")).toBe(first);
    expect(queue.take("image")).toBeUndefined();
    queue.ended(first);
    expect(queue.inFlight("image")).toBe(0);
    expect(queue.take("image")).toMatchObject({ key: "b" });
  });

  it("frees one slot only when the same task ends twice", () => {
    const queue = admission({ maxInFlight: 2 });
    const a = image("a", 2);
    queue.enqueue(a);
    queue.enqueue(image("b", 3));
    queue.take("image");
    queue.take("image");
    queue.ended(a);
    queue.ended(a);
    expect(queue.inFlight("image")).toBe(1);
    expect(queue.committed).toBe(3);
  });

  it("ignores the end of a task that was never in flight", () => {
    const queue = admission();
    queue.started(image("a"));
    queue.ended(image("stranger"));
    expect(queue.inFlight("image")).toBe(1);
  });

  it("counts a task the gateway already held once, however often it is started", () => {
    const queue = admission({ maxInFlight: 2 });
    const held = video("held", 3);
    queue.started(held);
    queue.started(held);
    expect(queue.inFlight("video")).toBe(1);
    expect(queue.committed).toBe(3);
  });

  it("counts tasks the gateway held at the start against the lane's cap", () => {
    const queue = admission({ maxInFlight: 1 });
    queue.started(image("held"));
    queue.enqueue(image("a"));
    expect(queue.take("image")).toBeUndefined();
  });
});

describe("admission budget", () => {
  it("takes a task whose estimate brings the committed sum to exactly max_cost", () => {
    const queue = admission({ maxCost: 5 });
    queue.enqueue(image("a", 2));
    queue.enqueue(image("b", 3));
    expect(drain(queue, "image")).toEqual({ keys: ["a", "b"], stop: undefined });
    expect(queue.committed).toBe(5);
  });

  it("answers budget when in-flight estimates plus the next estimate would pass max_cost", () => {
    const queue = admission({ maxCost: 5 });
    queue.enqueue(image("a", 3));
    queue.enqueue(image("b", 2.5));
    expect(drain(queue, "image")).toEqual({ keys: ["a"], stop: "budget" });
    // The task that did not fit still waits.
    expect(queue.pendingCount).toBe(1);
    expect(queue.inFlight("image")).toBe(1);
  });

  it("answers budget when money spent plus the next estimate would pass max_cost", () => {
    const queue = admission({ maxCost: 5 });
    queue.commit(4);
    queue.enqueue(image("a", 1.5));
    expect(queue.take("image")).toBe("budget");
  });

  it("counts the estimates of tasks in flight on either lane against one budget", () => {
    const queue = admission({ maxCost: 10 });
    queue.started(video("v", 8));
    queue.enqueue(text("t", 3));
    expect(queue.take("image")).toBe("budget");
  });

  it("moves a completed task's money from reserved to spent", () => {
    const queue = admission({ maxCost: 10 });
    const a = image("a", 4);
    queue.enqueue(a);
    queue.take("image");
    expect(queue.spent).toBe(0);
    expect(queue.committed).toBe(4);
    queue.commit(3);
    queue.ended(a);
    expect(queue.spent).toBe(3);
    expect(queue.committed).toBe(3);
  });

  it("lets a task go once a finished task's actual cost leaves room that its estimate did not", () => {
    const queue = admission({ maxCost: 10 });
    const a = image("a", 6);
    queue.enqueue(a);
    queue.enqueue(image("b", 5));
    expect(drain(queue, "image")).toEqual({ keys: ["a"], stop: "budget" });
    queue.commit(4);
    queue.ended(a);
    expect(queue.take("image")).toMatchObject({ key: "b" });
  });

  it("releases a failed task's reservation without spending anything", () => {
    const queue = admission({ maxCost: 10 });
    const a = image("a", 7);
    queue.started(a);
    queue.ended(a);
    expect(queue.committed).toBe(0);
    expect(queue.spent).toBe(0);
  });

  it("keeps a reservation for each submit of unknown outcome, counting a task told of twice once", () => {
    const queue = admission({ maxCost: 10, unknownCost: 2 });
    const a = image("a", 3);
    queue.started(a);
    queue.unknownSubmits(a, 1);
    queue.ended(a);
    // Held after one unknown submit: it may have been billed 3.
    expect(queue.committed).toBe(3);
    // Told again with its total (a resume, a dependant taken on twice): nothing more.
    queue.unknownSubmits(a, 1);
    queue.unknownSubmits(image("b"), 2);
    expect(queue.committed).toBe(7);
    expect(queue.unknownReserved).toBe(7);
    queue.enqueue(image("c", 4));
    expect(queue.take("image")).toBe("budget");
  });

  it("commits nothing for a null cost", () => {
    const queue = admission();
    queue.commit(2);
    queue.commit(null);
    expect(queue.spent).toBe(2);
  });

  it("never answers budget without a max_cost", () => {
    const queue = admission({ maxCost: undefined });
    queue.commit(1_000_000);
    queue.enqueue(image("a", 1_000_000));
    expect(queue.take("image")).toMatchObject({ key: "a" });
  });

  it("counts a task without an estimate as costing nothing", () => {
    const queue = admission({ maxCost: 5 });
    queue.started(video("held", null));
    queue.enqueue(image("a", 5));
    expect(queue.take("image")).toMatchObject({ key: "a" });
    expect(queue.committed).toBe(5);
    queue.enqueue(video("v", 0.01));
    expect(queue.take("video")).toBe("budget");
  });

  it("answers budget even for a task without an estimate once the budget is fully committed", () => {
    const queue = admission({ maxCost: 5 });
    queue.commit(5);
    queue.enqueue(image("unknown", null));
    expect(queue.take("image")).toBe("budget");
  });

  it("reserves unknown_cost for a task without an estimate, and its estimate for one with", () => {
    const queue = admission({ maxCost: 1, unknownCost: 0.3 });
    for (const task of [image("a", 0.5), image("b"), image("c")]) queue.enqueue(task);
    expect(drain(queue, "image")).toEqual({ keys: ["a", "b"], stop: "budget" });
    expect(queue.committed).toBe(0.8);
  });

  it("keeps the reservation of a task that finished without a reported cost", () => {
    const queue = admission({ maxCost: 1, unknownCost: 0.4 });
    for (const key of ["a", "b", "c"]) queue.enqueue(text(key));
    const a = queue.take("image");
    if (a === undefined || a === "budget") throw new Error("a was not taken");
    queue.finished(a, null);
    expect(queue.spent).toBe(0);
    expect(queue.committed).toBe(0.4);
    expect(drain(queue, "image")).toEqual({ keys: ["b"], stop: "budget" });
  });

  it("spends a reported cost in place of the reservation, for a task in flight or paid before", () => {
    const queue = admission({ maxCost: 1, unknownCost: 0.4 });
    const held = image("held");
    queue.started(held);
    queue.finished(held, 0.1);
    queue.finished(image("paid-before", 0.5), 0.2);
    expect(queue.inFlight("image")).toBe(0);
    expect(queue.spent).toBeCloseTo(0.3);
    expect(queue.committed).toBeCloseTo(0.3);
  });

  it("lets a sum of prices reach max_cost exactly, though floating point drifts past it", () => {
    const queue = admission({ maxCost: 0.3 });
    for (const key of ["a", "b", "c"]) queue.enqueue(image(key, 0.1));
    expect(drain(queue, "image")).toEqual({ keys: ["a", "b", "c"], stop: undefined });
  });

  it("answers undefined, not budget, when the lane is full", () => {
    const queue = admission({ maxInFlight: 1, maxCost: 1 });
    queue.enqueue(image("a", 1));
    queue.enqueue(image("b", 1));
    expect(queue.take("image")).toMatchObject({ key: "a" });
    expect(queue.take("image")).toBeUndefined();
  });
});
