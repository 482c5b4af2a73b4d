import type { ServerResponse } from "node:http";

/**
 * No other page may frame the viewer: framed under another page, a click there could become a
 * review here. Every answer says so, whatever else its policy allows.
 */
const NOT_FRAMED = "frame-ancestors 'none'";

/** A content security policy of `directives`, framing refused. */
export function contentPolicy(directives: string): string {
  return `${directives}; ${NOT_FRAMED}`;
}

/** Refuses framing; an answer that sets its own policy builds it with `contentPolicy`. */
export function refuseFraming(response: ServerResponse): void {
  response.setHeader("x-frame-options", "DENY");
  response.setHeader("content-security-policy", NOT_FRAMED);
}
