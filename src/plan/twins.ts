import type { NewTask, TaskRow } from "../store/index.js";

/**
 * Twins: tasks of one job that send the same request (a matrix variable no field uses, a value
 * listed twice). Each stays a task of its own, with its own outputs and variables, as the plan
 * counted and priced it: the first keeps the key its request gives, and a later one's key also
 * names its label (`TaskIdentity.twin`). Tasks of different jobs sending one request stay one
 * task, as they always were.
 */

/** A task as made, and the same task made again as a twin. */
export interface Made<T extends { task: NewTask }> {
  task: NewTask;
  asTwin(): T;
}

/**
 * The keys each job's tasks have taken so far. The key strings are the tasks' own: a million
 * tasks add set entries, not a million new strings.
 */
export class TakenKeys {
  readonly #byJob = new Map<string, Set<string>>();

  /** Whether an earlier task of `task`'s job has its key: then it must be made as a twin. */
  taken(task: NewTask): boolean {
    return this.#byJob.get(task.jobId)?.has(task.key) === true;
  }

  take(task: NewTask): void {
    const keys = this.#byJob.get(task.jobId) ?? new Set<string>();
    this.#byJob.set(task.jobId, keys);
    keys.add(task.key);
  }
}

/** The tasks in order, each one whose key an earlier task of its job has made again as a twin. */
export function keepTwinsApart<T extends { task: NewTask }>(made: readonly (T & Made<T>)[]): T[] {
  const keys = new TakenKeys();
  return made.map((item) => {
    const own = keys.taken(item.task) ? item.asTwin() : item;
    keys.take(own.task);
    return own;
  });
}

/**
 * Whether a recorded task is a twin: an earlier task of the list (a run's, in the order they
 * were recorded) is of its job, take and repeat, and sends the same request. Its takes are
 * twins too, so they do not meet the first one's.
 */
export function twinsAmong(tasks: readonly TaskRow[]): (task: TaskRow) => boolean {
  const alike = new Map<string, TaskRow[]>();
  for (const task of tasks) {
    if (task.placeholder === 1) continue;
    const group = groupOf(task);
    const found = alike.get(group);
    if (found === undefined) alike.set(group, [task]);
    else found.push(task);
  }
  return (task) => {
    const group = alike.get(groupOf(task)) ?? [];
    const place = group.indexOf(task);
    return group.slice(0, Math.max(0, place)).some((earlier) => earlier.request === task.request);
  };
}

function groupOf(task: TaskRow): string {
  return `${task.job_id}/${task.take}/${task.repeat_index}/${task.upstream_key}/${task.endpoint}`;
}
