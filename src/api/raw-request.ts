import type { Issue } from "../core/zod-issues.js";
import { dataUriImageIssues, familyForRequest, validateRequest } from "../families/index.js";

/** A raw request checked by the rules of the family its endpoint and model name. */

/** A raw request as other tools produce it: `{"endpoint": "/v1/...", "body": {...}}`. */
export interface RawRequest {
  id?: unknown;
  endpoint?: unknown;
  body?: unknown;
  headers?: unknown;
}

/**
 * Validates one raw request; issues use paths into the request object (`body.size`). Data URIs
 * in image fields are decoded and their headers read, hence async.
 */
export async function validateRawRequest(request: RawRequest): Promise<Issue[]> {
  if (typeof request.endpoint !== "string") {
    return [
      {
        path: ["endpoint"],
        rule: "required",
        message: "endpoint must be a request path such as /v1/images/generations",
      },
    ];
  }
  if (request.body === null || typeof request.body !== "object" || Array.isArray(request.body)) {
    return [
      {
        path: ["body"],
        rule: "required",
        message: "body must be the JSON object sent to the gateway",
      },
    ];
  }
  const body = request.body as Record<string, unknown>;
  const resolved = familyForRequest(request.endpoint, body);
  if ("error" in resolved) return [resolved.error];
  // A native request's model comes from its path, so its problems are the endpoint's.
  const fromPath = (field: string | number | undefined) =>
    typeof field === "string" && body[field] === undefined && resolved.body[field] !== undefined;
  const found = validateRequest(resolved.family, resolved.body);
  const reported = new Set(found.map((issue) => issue.path.join(".")));
  found.push(...(await dataUriImageIssues(resolved.family, resolved.body, new Map(), reported)));
  const issues = found.map((issue) => ({
    ...issue,
    path: fromPath(issue.path[0]) ? ["endpoint", ...issue.path] : ["body", ...issue.path],
  }));
  const headers = (request.headers ?? {}) as Record<string, unknown>;
  for (const rule of resolved.family.headers ?? []) {
    const present = Object.entries(headers).some(
      ([name, value]) =>
        rule.name.test(name) && typeof value === "string" && rule.value.test(value),
    );
    if (!present) {
      issues.push({
        path: ["headers"],
        rule: "required-header",
        message: `${request.endpoint} requires the ${rule.label} header with a YYYY-MM-DD value`,
      });
    }
  }
  return issues;
}
