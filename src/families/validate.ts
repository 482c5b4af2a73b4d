import { describeZodIssues, type Issue } from "../core/zod-issues.js";
import { dataUriFormatProblem } from "./common.js";
import { imageValues } from "./local-images.js";
import type { Family, RequestBody } from "./types.js";

/** One broken rule of a request: where (a path into the body), which rule, and what to do. */
export type RequestIssue = Issue;

/** Validates a request body against its family's rules; returns every problem, never throws. */
export function validateRequest(family: Family, body: RequestBody): RequestIssue[] {
  const result = family.schema.safeParse(body);
  const issues = result.success ? [] : describeZodIssues(family.schema, body, result.error.issues);
  return [...issues, ...dataUriFormatIssues(family, body)];
}

/**
 * Data URIs in image fields whose format is not in that field's list. The lists live in the
 * family's image input rules, which local files are checked against too, so both agree.
 */
function dataUriFormatIssues(family: Family, body: RequestBody): RequestIssue[] {
  return imageValues(family, body).flatMap(({ rule, path, value }) => {
    // A field without Data URIs already refuses them by its schema.
    if (!rule.dataUri || rule.formats === undefined || typeof value !== "string") return [];
    const problem = dataUriFormatProblem(value, rule.formats);
    return problem === undefined ? [] : [{ path, rule: "image-format", message: problem }];
  });
}
