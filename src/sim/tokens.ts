import { createHmac } from "node:crypto";

/**
 * Signed, self-describing tokens: task ids and file links carry everything needed to answer
 * for them, so a simulator started later (a resumed run starts a fresh one) still knows the
 * tasks and links an earlier one handed out. The signature only tells ours from made-up ids.
 */

const SECRET = "gwrun-sim-1";

function signature(payload: string): string {
  return createHmac("sha256", SECRET).update(payload).digest("base64url").slice(0, 12);
}

/** `<base64url JSON>.<signature>` */
export function writeToken(value: object): string {
  const payload = Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${payload}.${signature(payload)}`;
}

/** The value of a token written by `writeToken`, or undefined if it is not one. */
export function readToken(token: string): Record<string, unknown> | undefined {
  const dot = token.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const payload = token.slice(0, dot);
  if (signature(payload) !== token.slice(dot + 1)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
