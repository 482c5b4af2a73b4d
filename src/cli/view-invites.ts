import { ExitCode, type StoreFlags, storeAt, withExistingStore } from "../api/index.js";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import {
  hostPort,
  INVITE_EXPIRES,
  inviteReviewer,
  inviteState,
  isWildcard,
  revokeReviewer,
} from "../view/index.js";
import { err, out } from "./output.js";
import { listenOf } from "./view.js";

export interface InviteFlags extends StoreFlags {
  expires?: string;
  port?: string;
  listen?: string;
  host?: string[];
}

/**
 * `gwrun view invite NAME`: a reviewer's link to a shared viewer, printed once (the store
 * keeps only its token's sha256); inviting a name again replaces its link.
 */
export async function inviteToView(name: string, flags: InviteFlags): Promise<ExitCode> {
  const base = linkBase(flags);
  return withExistingStore(storeAt(flags), async (store) => {
    const now = systemClock.now();
    const invited = await inviteReviewer(store, name, flags.expires ?? INVITE_EXPIRES, now);
    out(`${base.url}/?token=${invited.token}`);
    err(
      `gwrun view: ${name}'s link, shown once (only its hash is kept); it works until ${new Date(invited.expiresAt).toISOString()} with gwrun view --share, and gwrun view revoke ${name} ends it`,
    );
    if (base.hint !== undefined) err(`gwrun view: ${base.hint}`);
    return ExitCode.Ok;
  });
}

/** `gwrun view revoke NAME`: the reviewer's link stops working at once. */
export async function revokeFromView(name: string, flags: StoreFlags): Promise<ExitCode> {
  return withExistingStore(storeAt(flags), async (store) => {
    if (!(await revokeReviewer(store, name, systemClock.now())))
      throw new GwError(ErrorCode.Usage, `no link of "${name}" works now`, {
        hint: "gwrun view invites lists the reviewers invited",
      });
    out(`gwrun view: ${name}'s link is revoked`);
    return ExitCode.Ok;
  });
}

/** `gwrun view invites`: the reviewers invited, when, until when, and whether revoked; no token. */
export async function listInvites(flags: StoreFlags & { json?: boolean }): Promise<ExitCode> {
  return withExistingStore(storeAt(flags), async (store) => {
    const now = systemClock.now();
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    const invites = (await store.viewTokens()).map((row) => ({
      name: row.name,
      created: iso(row.created_at),
      expires: iso(row.expires_at),
      revoked: iso(row.revoked_at),
      state: inviteState(row, now),
    }));
    if (flags.json === true) out(JSON.stringify(invites, null, 2));
    else if (invites.length === 0) out("no reviewers invited (gwrun view invite NAME)");
    else
      for (const invite of invites)
        out(
          `${invite.name}\t${invite.state}\tcreated ${invite.created}\texpires ${invite.expires}${invite.revoked === null ? "" : `\trevoked ${invite.revoked}`}`,
        );
    return ExitCode.Ok;
  });
}

/**
 * Where the link points: the name a TLS proxy serves (`--host`, https), else the address the
 * viewer listens on (`--listen`, or 127.0.0.1 and `--port`).
 */
function linkBase(flags: InviteFlags): { url: string; hint?: string } {
  const name = flags.host?.[0];
  if (name !== undefined) return { url: `https://${name}` };
  const { host, port } = listenOf(flags);
  if (isWildcard(host))
    return {
      url: `http://${hostPort("127.0.0.1", port)}`,
      hint: "the link names this machine as 127.0.0.1: give --host NAME for the name reviewers reach it by",
    };
  if (port === 0)
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:PORT`,
      hint: "put the shared viewer's port for PORT, or give its --listen ADDR:PORT (or --port) here too",
    };
  return { url: `http://${hostPort(host, port)}` };
}
