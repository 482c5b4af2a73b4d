import { describeZodIssues, type Issue } from "../core/zod-issues.js";
import type { Family, RequestBody } from "./types.js";

/** One broken rule of a request: where (a path into the body), which rule, and what to do. */
export type RequestIssue = Issue;

/** Validates a request body against its family's rules; returns every problem, never throws. */
export function validateRequest(family: Family, body: RequestBody): RequestIssue[] {
  const result = family.schema.safeParse(body);
  return result.success ? [] : describeZodIssues(family.schema, body, result.error.issues);
}
