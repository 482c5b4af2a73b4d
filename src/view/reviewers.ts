import { randomBytes } from "node:crypto";
import { ErrorCode, GwError } from "../core/errors.js";
import { sha256 } from "../core/hash.js";
import { parseDuration } from "../manifest/index.js";
import type { Store, ViewTokenRow } from "../store/index.js";

/**
 * The reviewers of a shared viewer (`gwrun view --share`): each invited by name with a token of
 * their own, kept in the store as its sha256 only, refused once revoked or expired.
 */

/** How long an invitation lasts unless `--expires` says otherwise. */
export const INVITE_EXPIRES = "7d";

/** A name as reviews record it: short, plain, never `agent` (what `gwrun mcp` records). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A reviewer's state at `now`, as `gwrun view invites` shows it. */
export type InviteState = "active" | "expired" | "revoked";

export interface Invitation {
  name: string;
  /** Shown once: the store keeps only its sha256. */
  token: string;
  expiresAt: number;
}

/** Invites `name` for `expires` ("7d", "12h"), replacing an earlier token of that name. */
export async function inviteReviewer(
  store: Store,
  name: string,
  expires: string,
  now: number,
): Promise<Invitation> {
  checkName(name);
  const lasts = parseDuration(expires);
  if (lasts === undefined || lasts < 1000)
    throw new GwError(ErrorCode.Usage, `--expires: "${expires}" is not a duration`, {
      hint: 'say how long the link works: "7d", "12h", "30m"',
    });
  const token = randomBytes(24).toString("base64url");
  const expiresAt = now + lasts;
  await store.recordViewToken({ name, tokenSha256: sha256(token), createdAt: now, expiresAt });
  return { name, token, expiresAt };
}

/** Revokes `name`'s token; false when it has none that works. */
export async function revokeReviewer(store: Store, name: string, now: number): Promise<boolean> {
  checkName(name);
  return store.revokeViewToken(name, now);
}

/** The reviewer a token is of, if it is neither revoked nor expired at `now`. */
export async function reviewerOf(
  store: Store,
  token: string,
  now: number,
): Promise<string | undefined> {
  if (token === "") return undefined;
  const row = await store.viewTokenOf(sha256(token));
  return row !== undefined && inviteState(row, now) === "active" ? row.name : undefined;
}

export function inviteState(row: ViewTokenRow, now: number): InviteState {
  if (row.revoked_at !== null) return "revoked";
  return row.expires_at <= now ? "expired" : "active";
}

function checkName(name: string): void {
  if (!NAME.test(name) || name.toLowerCase() === "agent")
    throw new GwError(ErrorCode.Usage, `"${name}" cannot name a reviewer`, {
      hint: 'a name of letters, digits and . _ @ - (up to 64), not "agent"',
    });
}
