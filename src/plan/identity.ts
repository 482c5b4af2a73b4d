import { canonicalJson, sha256 } from "../core/hash.js";

/** What makes a task itself: the request and which of its repeats it is. */
export interface TaskIdentity {
  endpoint: string;
  body: Record<string, unknown>;
  repeatIndex: number;
  /** The schedule tick of a scheduled run, so today's tasks differ from yesterday's. */
  tick?: string;
  /** A regeneration after review (take 2 on); take 1 leaves the key as it always was. */
  take?: number;
  /**
   * The name of a task whose request an earlier planned task already sends (its label, or its
   * job and label: see twins.ts): it stays a task of its own. Absent for every other task,
   * whose key is as it always was.
   */
  twin?: string;
  /**
   * The upstream output a dependant is made from, when its request does not show it (a
   * template that reads only `{{input.vars.…}}`, or nothing of it): one task per output.
   */
  upstream?: string;
}

/**
 * A task's key: the sha256 of its canonical request (endpoint and body with keys sorted at
 * every depth, local files by content hash) plus its repeat index. Stable across key order
 * and YAML formatting; any change to the request gives a new key.
 */
export function taskKey(identity: TaskIdentity): string {
  const { endpoint, body, repeatIndex, tick, take, twin, upstream } = identity;
  const named: Record<string, unknown> = { endpoint, body, repeatIndex };
  if (tick !== undefined) named.tick = tick;
  if (take !== undefined && take > 1) named.take = take;
  if (twin !== undefined) named.twin = twin;
  if (upstream !== undefined) named.upstream = upstream;
  return sha256(canonicalJson(named));
}
