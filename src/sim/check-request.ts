import type { IncomingHttpHeaders } from "node:http";
import {
  type Family,
  familyForRequest,
  PUBLIC_URL_RULE,
  type RequestBody,
  validateRequest,
} from "../families/index.js";

/**
 * Which answer a request earns by the spec's rules, using the same family rules gwrun
 * validates manifests with: 400 for invalid parameters (with the named errors of video
 * family 2 at the front of the message), 422 for the constraint violations of the
 * multi-mode video family 3.
 */
export type RequestCheck =
  | { ok: true; family: Family; body: RequestBody }
  | { ok: false; status: 400 | 422; message: string };

/** Named 400 errors of video family 2: the name leads the message. */
const NAMED_ERRORS = new Set(["mixed_media_not_allowed", "audio_setting_only_for_edit"]);

/** Family 3's mode and Omni rules (violations are 422, not billed); its field rules stay 400. */
const CONSTRAINT_RULES = new Set([
  "mode-conflict",
  "same-type",
  "only-with",
  "mutually-exclusive",
  "tag-in-prompt",
]);
const CONSTRAINT_FIELDS = new Set(["ref_images", "ref_videos", "mid_frame_images"]);

export function checkRequest(
  path: string,
  body: unknown,
  headers: IncomingHttpHeaders,
): RequestCheck {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return { ok: false, status: 400, message: "the request body must be a JSON object" };
  }
  const routed = familyForRequest(path, body as RequestBody);
  if ("error" in routed) {
    const field = routed.error.path.at(-1);
    return { ok: false, status: 400, message: `${String(field)}: ${routed.error.message}` };
  }
  const { family } = routed;
  const headerProblem = checkHeaders(family, headers);
  if (headerProblem !== undefined) return { ok: false, status: 400, message: headerProblem };
  // The simulator fetches nothing, and serves its own outputs on loopback for dependants.
  const issues = validateRequest(family, routed.body).filter(
    (i) => i.severity !== "warning" && i.rule !== PUBLIC_URL_RULE,
  );
  if (issues.length === 0) return { ok: true, family, body: routed.body };
  const named = issues.find((issue) => NAMED_ERRORS.has(issue.rule));
  if (named !== undefined) {
    return { ok: false, status: 400, message: `${named.rule}: ${named.message}` };
  }
  const described = issues
    .map((issue) => `${issue.path.length === 0 ? "body" : issue.path.join(".")}: ${issue.message}`)
    .join("; ");
  const constraint =
    family.id === "video-3" &&
    issues.every(
      (issue) => CONSTRAINT_RULES.has(issue.rule) || CONSTRAINT_FIELDS.has(String(issue.path[0])),
    );
  return { ok: false, status: constraint ? 422 : 400, message: described };
}

function checkHeaders(family: Family, headers: IncomingHttpHeaders): string | undefined {
  for (const rule of family.headers ?? []) {
    const name = Object.keys(headers).find((header) => rule.name.test(header));
    const value = name === undefined ? undefined : headers[name];
    if (typeof value !== "string") return `the ${rule.label} header is required`;
    if (!rule.value.test(value)) {
      return `the ${rule.label} header must be a date written YYYY-MM-DD, got "${value}"`;
    }
  }
  return undefined;
}
