import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/clock.js";
import type { Store } from "../store/index.js";
import { FailedAttempts } from "./attempts.js";
import { isLoopback } from "./listen.js";
import { Refused } from "./replies.js";
import { reviewerOf } from "./reviewers.js";

/**
 * A shared viewer's door: every request, a page, a script or a file, comes with a reviewer's
 * token, from the `x-gwrun-token` header, the invite link's `?token=`, or the cookie set when
 * that link was opened (scripts, styles and images cannot send a header). Without a valid one:
 * 401; too many wrong ones from an address: 429 for a while.
 */

/** Where a request's token came from: a change must send the header (a cookie rides along). */
export type TokenSource = "header" | "query" | "cookie";

/** A reviewer let in, and how. */
export interface Admitted {
  name: string;
  via: TokenSource;
}

/** Kept by the browser for this site only, out of the pages' scripts' reach. */
const COOKIE = "gwrun_view";

export class SharedAccess {
  private readonly attempts = new FailedAttempts();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The reviewer a request is from; else throws `Refused` (401, or 429 when over the limit). */
  async admit(request: IncomingMessage, url: URL, response: ServerResponse): Promise<Admitted> {
    const address = clientAddress(request);
    if (this.attempts.blocked(address, this.clock.now()))
      throw new Refused(429, "too many wrong tokens from this address: try again in a minute");
    const given = tokenOf(request, url);
    const name =
      given === undefined ? undefined : await reviewerOf(this.store, given.token, this.clock.now());
    if (given !== undefined && name === undefined) {
      this.attempts.failed(address, this.clock.now());
      // A revoked or expired token in the cookie is sent no more.
      if (given.via === "cookie") response.setHeader("set-cookie", `${COOKIE}=; Path=/; Max-Age=0`);
    }
    if (given === undefined || name === undefined)
      throw new Refused(
        401,
        "this viewer is shared: open it with the link you were invited with (gwrun view invite NAME)",
      );
    if (given.via === "query") response.setHeader("set-cookie", cookieOf(given.token, request));
    return { name, via: given.via };
  }
}

/** The token a request brings, the header first, then the link's, then the cookie. */
function tokenOf(
  request: IncomingMessage,
  url: URL,
): { token: string; via: TokenSource } | undefined {
  const header = request.headers["x-gwrun-token"];
  if (typeof header === "string" && header !== "") return { token: header, via: "header" };
  const query = url.searchParams.get("token");
  if (query !== null && query !== "") return { token: query, via: "query" };
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE && value.join("=") !== "") return { token: value.join("="), via: "cookie" };
  }
  return undefined;
}

/** The cookie the link's token is kept in; `Secure` when a TLS proxy says it served HTTPS. */
function cookieOf(token: string, request: IncomingMessage): string {
  const secure = request.headers["x-forwarded-proto"] === "https" ? "; Secure" : "";
  return `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict${secure}`;
}

/**
 * Whom failures are counted against: the peer, or, when the peer is a proxy on this machine,
 * the client it names last in `x-forwarded-for` (the one the proxy itself saw).
 */
export function clientAddress(request: IncomingMessage): string {
  const peer = request.socket.remoteAddress ?? "";
  const forwarded = request.headers["x-forwarded-for"];
  if (!isLoopback(peer.replace(/^::ffff:/, "")) || typeof forwarded !== "string") return peer;
  return forwarded.split(",").at(-1)?.trim() || peer;
}
