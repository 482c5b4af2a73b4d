import { describe, expect, it } from "vitest";
import { POSTGRES, SQLITE } from "../../../src/store/dialect.js";
import { runTasks } from "../../../src/store/queries/run-tasks.js";
import { gridSlices } from "../../../src/store/queries/views.js";

describe("a large run's views, as the store reads them", () => {
  it("a grid page takes the rows of each job it spans, jobs in the order first recorded", () => {
    const groups = [
      { job_id: "b", first: 9, n: 3 },
      { job_id: "a", first: 2, n: 4 },
      { job_id: "c", first: 5, n: 0 },
    ];
    expect(gridSlices(groups, { offset: 0, limit: 2 })).toEqual([
      { job_id: "a", offset: 0, limit: 2 },
    ]);
    // Across two jobs, an empty one between them taking nothing.
    expect(gridSlices(groups, { offset: 3, limit: 3 })).toEqual([
      { job_id: "a", offset: 3, limit: 1 },
      { job_id: "b", offset: 0, limit: 2 },
    ]);
    expect(gridSlices(groups, { offset: 6, limit: 5 })).toEqual([
      { job_id: "b", offset: 2, limit: 1 },
    ]);
    expect(gridSlices(groups, { offset: 7, limit: 5 })).toEqual([]);
  });

  it("SQLite is told which index reads a run's tasks; PostgreSQL plans without the hint", () => {
    expect(runTasks(SQLITE)).toBe(
      "run_jobs JOIN jobs INDEXED BY jobs_of_runs ON jobs.key = run_jobs.key",
    );
    expect(runTasks(POSTGRES)).toBe("run_jobs JOIN jobs ON jobs.key = run_jobs.key");
  });
});
