import { describe, expect, it } from "vitest";
import { type Placement, type PlacementFacts, placementOf } from "../../../src/plan/placement.js";
import { TaskState } from "../../../src/store/index.js";
import { taskRow } from "../../helpers/task-row.js";

/** Facts under which a task has nothing odd about it. */
const plain: PlacementFacts = {
  force: false,
  claimAlive: false,
  filesIntact: true,
  toDeliver: false,
  reviewImagesGone: false,
  linksLive: true,
};

describe("placement of a recorded task", () => {
  it.each<[string, TaskState, Partial<PlacementFacts>, Placement]>([
    ["a pending task is queued", TaskState.Pending, {}, "queue"],
    [
      "a submitting task with a live claim is left to its process",
      TaskState.Submitting,
      { claimAlive: true },
      "leave",
    ],
    [
      "a submitting task with a dead claim is released as unknown",
      TaskState.Submitting,
      { claimAlive: false },
      "release-unknown",
    ],
    ["a submitted task is polled", TaskState.Submitted, {}, "poll"],
    ["a processing task is polled", TaskState.Processing, {}, "poll"],
    ["a completed task is downloaded", TaskState.Completed, {}, "download"],
    ["a downloaded task is checked", TaskState.Downloaded, {}, "check"],
    ["a done task with intact files stays done", TaskState.Done, {}, "done"],
    ["a done task is redone with --force", TaskState.Done, { force: true }, "redo"],
    [
      "--force redoes a done task even with intact files and live links",
      TaskState.Done,
      { force: true, filesIntact: true, linksLive: true },
      "redo",
    ],
    [
      "a done task whose review images are gone is checked again",
      TaskState.Done,
      { reviewImagesGone: true },
      "recheck",
    ],
    [
      "a done task whose files are gone is downloaded again while its links live",
      TaskState.Done,
      { filesIntact: false, linksLive: true },
      "redownload",
    ],
    [
      "a done task whose files and links are gone is redone",
      TaskState.Done,
      { filesIntact: false, linksLive: false },
      "redo",
    ],
    [
      "missing files outrank missing review images",
      TaskState.Done,
      { filesIntact: false, reviewImagesGone: true, linksLive: true },
      "redownload",
    ],
    [
      "a done task whose files are intact only in another output folder is delivered",
      TaskState.Done,
      { toDeliver: true },
      "deliver",
    ],
    [
      "a done task whose files are gone is not delivered but downloaded again",
      TaskState.Done,
      { filesIntact: false, toDeliver: true, linksLive: true },
      "redownload",
    ],
    ["a failed task is left", TaskState.Failed, {}, "leave"],
    ["a rejected task is left", TaskState.Rejected, {}, "leave"],
    ["an expired task is left", TaskState.Expired, {}, "leave"],
    ["a skipped task is left", TaskState.Skipped, {}, "leave"],
  ])("%s", (_, state, facts, expected) => {
    expect(placementOf(taskRow({ state }), { ...plain, ...facts })).toBe(expected);
  });

  it("leaves a pending stand-in for a failed upstream's dependants", () => {
    expect(placementOf(taskRow({ state: TaskState.Pending, placeholder: 1 }), plain)).toBe("leave");
  });

  it.each([
    TaskState.Failed,
    TaskState.Rejected,
    TaskState.Expired,
    TaskState.Skipped,
  ])("leaves a %s task whatever the facts say", (state) => {
    const odd: PlacementFacts = {
      force: true,
      claimAlive: true,
      filesIntact: false,
      toDeliver: true,
      reviewImagesGone: true,
      linksLive: false,
    };
    expect(placementOf(taskRow({ state }), odd)).toBe("leave");
  });
});
