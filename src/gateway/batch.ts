import { isRecord } from "../core/values.js";

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
