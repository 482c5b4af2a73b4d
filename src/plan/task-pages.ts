import type { CheckedJob } from "../families/index.js";
import type { NewTask } from "../store/index.js";
import { TaskMaker } from "./tasks.js";

/** Tasks a run records in one transaction: a page is made, recorded and let go. */
export const TASK_PAGE = 2_000;

/**
 * A run's initial tasks in pages of about `size` (a page ends after a whole expansion's
 * repeats), in the order `initialTasks` makes them: a run of a million tasks holds one page.
 * Each page may be recorded on its own: recording again adds only what is missing.
 */
export async function* taskPages(
  jobs: AsyncIterable<CheckedJob>,
  size: number = TASK_PAGE,
): AsyncGenerator<NewTask[]> {
  const maker = new TaskMaker();
  let page: NewTask[] = [];
  for await (const checked of jobs) {
    for (const task of maker.tasksOf(checked)) page.push(task);
    if (page.length >= size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
