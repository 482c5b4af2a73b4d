import type { ArgsOf } from "../program.js";
import { changes, first, read, rows, write } from "../program.js";
import type { ViewTokenRow } from "../report-port.js";

/**
 * The shared viewer's reviewers: one row per name, its token kept as a sha256 only. Inviting a
 * name again replaces its token (the earlier link stops working) and lifts a revocation.
 */

export const viewTokenOperations = {
  recordViewToken: write(function* (...[invite]: ArgsOf<"recordViewToken">) {
    yield* changes(
      `INSERT INTO view_tokens (name, token_sha256, created_at, expires_at, revoked_at)
       VALUES (?, ?, ?, ?, NULL)
       ON CONFLICT (name) DO UPDATE SET token_sha256 = excluded.token_sha256,
         created_at = excluded.created_at, expires_at = excluded.expires_at, revoked_at = NULL`,
      [invite.name, invite.tokenSha256, invite.createdAt, invite.expiresAt],
    );
  }),
  /** Guarded: a name revoked already keeps the time it was first revoked. */
  revokeViewToken: write(function* (...[name, now]: ArgsOf<"revokeViewToken">) {
    const revoked = yield* changes(
      "UPDATE view_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
      [now, name],
    );
    return revoked > 0;
  }),
  viewTokenOf: read(function* (tokenSha256: string) {
    return yield* first<ViewTokenRow>("SELECT * FROM view_tokens WHERE token_sha256 = ?", [
      tokenSha256,
    ]);
  }),
  viewTokens: read(function* () {
    return yield* rows<ViewTokenRow>("SELECT * FROM view_tokens ORDER BY name");
  }),
};
