import type { Random } from "../core/random.js";
import { FAMILIES, familyFields } from "../families/index.js";
import type { NewTask, TaskRow } from "../store/index.js";
import { taskKey } from "./identity.js";
import { twinsAmong } from "./twins.js";

/**
 * New takes: after review, a rejected output's task is made again as a new task beside it —
 * its key names the take, its label ends `-t<take>`, and where the family takes a `seed` it
 * gets a new one, so the gateway does not hand back the same picture. The rejected task and
 * its files stay, for comparison.
 */

/** Seeds every family accepts: the spec's narrowest range is 0 … 2^31 - 1. */
const SEED_LIMIT = 2_147_483_647;

/** The label every take of a task shares: the first take's. */
export function rootLabel(task: Pick<TaskRow, "label" | "take">): string {
  return task.take > 1 ? task.label.replace(/-t\d+$/, "") : task.label;
}

/** Whether requests of this family carry a `seed`. */
function takesSeed(familyId: string | null): boolean {
  const family = FAMILIES.find((candidate) => candidate.id === familyId);
  return family !== undefined && familyFields(family).has("seed");
}

/**
 * The next take of each task whose latest take has a rejected output (`rejected`: their
 * keys). A task already retried is left alone: only the latest take of a label counts.
 */
export function nextTakes(
  tasks: readonly TaskRow[],
  rejected: ReadonlySet<string>,
  random: Random,
): NewTask[] {
  const latest = new Map<string, TaskRow>();
  for (const task of tasks) {
    if (task.placeholder === 1) continue;
    const root = rootLabel(task);
    const seen = latest.get(root);
    if (seen === undefined || task.take > seen.take) latest.set(root, task);
  }
  const takes: NewTask[] = [];
  const twins = twinsAmong(tasks);
  for (const [root, task] of latest) {
    if (!rejected.has(task.key)) continue;
    const take = task.take + 1;
    const label = `${root}-t${take}`;
    const body = JSON.parse(task.request) as Record<string, unknown>;
    if (takesSeed(task.family)) body.seed = Math.floor(random.next() * SEED_LIMIT);
    const twin = twins(task, label);
    takes.push({
      key: taskKey({ endpoint: task.endpoint, body, repeatIndex: task.repeat_index, take, twin }),
      jobId: task.job_id,
      label,
      family: task.family,
      lane: task.lane,
      endpoint: task.endpoint,
      request: JSON.stringify(body),
      upstreamKey: task.upstream_key,
      estimatedCost: task.estimated_cost,
      vars: task.vars === null ? {} : (JSON.parse(task.vars) as Record<string, unknown>),
      repeatIndex: task.repeat_index,
      take,
    });
  }
  return takes;
}
