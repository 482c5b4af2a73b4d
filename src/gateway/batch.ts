import { isRecord } from "../core/values.js";
import type { GatewayError } from "./errors.js";
import type { TaskRecord } from "./task-record.js";

/** Waits for a query's turn at the run's pace before it is sent. */
export type QueryTurn = () => Promise<void>;

/** Task records from one round of polling. */
export interface TaskBatch {
  records: Map<string, TaskRecord>;
  /** Ids the gateway says do not exist or have expired. */
  unknown: string[];
}

/** Parallel single queries when the batch endpoint is unusable. */
export const SINGLE_QUERY_PARALLELISM = 8;

/** The spec shows only the message of an unknown-task answer, not its status. */
export function isUnknownTask(error: GatewayError): boolean {
  return (
    error.status === 404 ||
    (error.status !== undefined &&
      error.status < 500 &&
      /does not exist|has expired|not found/i.test(error.message))
  );
}

/** Fields under which a batch answer may hold its list of task records. */
const LIST_FIELDS = ["tasks", "items", "records", "results", "data", "list"];

/**
 * The task records of a batch answer, whose body the spec does not show. Accepted: a list of
 * records; an object holding such a list; a map from task id to record — bare or inside the
 * `{code, data}` envelope. Undefined when the body is none of these.
 */
export function batchRecords(json: unknown): unknown[] | undefined {
  const data = isRecord(json) && "code" in json && "data" in json ? json.data : json;
  if (Array.isArray(data)) return data;
  if (!isRecord(data)) return undefined;
  for (const field of LIST_FIELDS) {
    const list = data[field];
    if (Array.isArray(list)) return list;
  }
  const entries = Object.entries(data);
  if (entries.length > 0 && entries.every(([, value]) => isRecord(value) && "status" in value)) {
    return entries.map(([id, value]) => ({ id, ...(value as Record<string, unknown>) }));
  }
  return entries.length === 0 ? [] : undefined;
}
