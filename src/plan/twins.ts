import { sha256 } from "../core/hash.js";
import type { NewTask, TaskRow } from "../store/index.js";

/**
 * Twins: planned tasks that would send the same request — expansions of one job (a matrix
 * variable no field uses, a value listed twice), two jobs with one prompt, takes of those.
 * Each planned task is made, paid and delivered, as the plan counted and priced it: the first
 * keeps the key its request gives, and a later one's key also names it (`TaskIdentity.twin`):
 * its label when an earlier task of its own job sends the request, else its job and label.
 * Dependants of different upstream outputs never meet: their keys name the output.
 */

/** A task as made, and the same task made again as a twin named `twin`. */
export interface Made<T extends { task: NewTask }> {
  task: NewTask;
  asTwin(twin: string): T;
}

/**
 * What names a task whose key an earlier task took: its label within its own job, its job
 * and label across jobs (labels are a job's own, so two jobs may share one).
 */
function twinName(task: Pick<NewTask, "jobId" | "label">, sameJob: boolean): string {
  return sameJob ? task.label : `${task.jobId}/${task.label}`;
}

/**
 * The keys a run's tasks have taken so far, made one at a time. The job at hand's keys are
 * kept whole (a set of the tasks' own strings); earlier jobs' as 64-bit fingerprints, so a
 * run of a million tasks holds 16 bytes a task, not its keys.
 */
export class TakenKeys {
  #jobId: string | undefined;
  #job = new Set<string>();
  readonly #earlier = new KeyFingerprints();

  /** Undefined when `task`'s key is free, else the name it is made again under. */
  twinOf(task: Pick<NewTask, "jobId" | "key" | "label">): string | undefined {
    if (this.#job.has(task.key)) return twinName(task, task.jobId === this.#jobId);
    if (this.#earlier.has(task.key)) return twinName(task, false);
    return undefined;
  }

  take(task: Pick<NewTask, "jobId" | "key">): void {
    if (task.jobId !== this.#jobId) {
      for (const key of this.#job) this.#earlier.add(key);
      this.#jobId = task.jobId;
      this.#job = new Set();
    }
    this.#job.add(task.key);
  }
}

/** The tasks in order, each one whose key an earlier task has taken made again as a twin. */
export function keepTwinsApart<T extends { task: NewTask }>(made: readonly (T & Made<T>)[]): T[] {
  const keys = new TakenKeys();
  return made.map((item) => {
    const twin = keys.twinOf(item.task);
    const own = twin === undefined ? item : item.asTwin(twin);
    keys.take(own.task);
    return own;
  });
}

/**
 * The twin name of each recorded task (a run's, in the order they were recorded), as `label`
 * (its own, or its next take's) names it: undefined unless an earlier task of the list is of
 * its take and repeat and sends the same request. Its takes are twins too, so they do not
 * meet the first one's.
 */
export function twinsAmong(
  tasks: readonly TaskRow[],
): (task: TaskRow, label?: string) => string | undefined {
  // Grouped by request text first: the strings are the rows' own, never copied.
  const alike = new Map<string, TaskRow[]>();
  for (const task of tasks) {
    if (task.placeholder === 1) continue;
    const found = alike.get(task.request);
    if (found === undefined) alike.set(task.request, [task]);
    else found.push(task);
  }
  return (task, label = task.label) => {
    const group = alike.get(task.request) ?? [];
    const earlier = group
      .slice(0, Math.max(0, group.indexOf(task)))
      .filter((other) => sameSlot(other, task));
    if (earlier.length === 0) return undefined;
    const sameJob = earlier.some((other) => other.job_id === task.job_id);
    return twinName({ jobId: task.job_id, label }, sameJob);
  };
}

function sameSlot(a: TaskRow, b: TaskRow): boolean {
  return a.take === b.take && a.repeat_index === b.repeat_index && a.endpoint === b.endpoint;
}

/**
 * A set of sha256 hex keys by their first 64 bits, in one open-addressed table: two keys
 * share a fingerprint once in 2^64, and then a task is made a twin it need not be — still
 * one task, under a key of its own.
 */
export class KeyFingerprints {
  #slots = new Uint32Array(2 * 1024);
  #size = 0;

  has(key: string): boolean {
    const [high, low] = fingerprint(key);
    return this.#slots[this.#find(high, low)] !== 0;
  }

  add(key: string): void {
    const [high, low] = fingerprint(key);
    const at = this.#find(high, low);
    if (this.#slots[at] !== 0) return;
    this.#slots[at] = high;
    this.#slots[at + 1] = low;
    this.#size++;
    if (this.#size * 2 > this.#slots.length / 2) this.#grow();
  }

  /** The slot holding the fingerprint, or the empty one where it would go. */
  #find(high: number, low: number): number {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      const at = slot * 2;
      if (slots[at] === 0 || (slots[at] === high && slots[at + 1] === low)) return at;
    }
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 2) {
      const high = old[at] as number;
      if (high === 0) continue;
      const low = old[at + 1] as number;
      const to = this.#find(high, low);
      this.#slots[to] = high;
      this.#slots[to + 1] = low;
    }
  }
}

/** A key's first 64 bits as two words; the high word is never 0, which marks an empty slot. */
function fingerprint(key: string): [number, number] {
  const hex = HEX_KEY.test(key) ? key : sha256(key);
  const high = Number.parseInt(hex.slice(0, 8), 16);
  return [high === 0 ? 1 : high, Number.parseInt(hex.slice(8, 16), 16)];
}

const HEX_KEY = /^[0-9a-f]{16}/;
