import { randomBytes } from "node:crypto";
import { ExitCode, type StoreFlags, storeAt, withExistingStore } from "../api/index.js";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import {
  type ListenAddress,
  parseListen,
  refuseUnshared,
  startViewServer,
  type ViewAccess,
} from "../view/index.js";
import { err, out } from "./output.js";
import { stopRequested } from "./run-signals.js";

export interface ViewFlags extends StoreFlags {
  port?: string;
  open?: boolean;
  share?: boolean;
  listen?: string;
  host?: string[];
}

/**
 * `gwrun view [--port N] [--open]`: serves the viewer on 127.0.0.1 until interrupted; prints
 * its URL with the token that changes (reviews) need. `--share [--listen ADDR:PORT] [--host
 * NAME]…`: serves it to invited reviewers only (`gwrun view invite NAME`), who each need a link.
 */
export async function viewStore(flags: ViewFlags): Promise<ExitCode> {
  const { host, port } = listenOf(flags);
  refuseUnshared(host, flags.share === true);
  if (flags.share === true && flags.open === true)
    throw new GwError(ErrorCode.Usage, "--open opens no page of a shared viewer", {
      hint: "open the link gwrun view invite NAME prints",
    });
  const access: ViewAccess =
    flags.share === true
      ? { share: { hosts: flags.host ?? [] } }
      : { token: randomBytes(18).toString("base64url") };
  const at = storeAt(flags);
  return withExistingStore(at, async (store, located) => {
    const server = await startViewServer({
      ...access,
      store,
      project: located.project,
      host,
      port,
      clock: systemClock,
      onProblem: (message) => err(`gwrun view: ${message}`),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new GwError(ErrorCode.Usage, `port ${port} is in use`, {
          hint: "leave --port out for any free port",
        });
      throw error;
    });
    const url =
      server.token === undefined ? `${server.url}/` : `${server.url}/?token=${server.token}`;
    const stopped = stopRequested();
    out(url);
    if (server.token === undefined)
      err(
        "gwrun view: shared; every request needs a reviewer's link (gwrun view invite NAME); Ctrl-C stops it",
      );
    else err("gwrun view: serving the state database on loopback; Ctrl-C stops it");
    if (flags.open === true) {
      // Loaded only here: the media tools are not needed to serve pages.
      const { openInBrowser } = await import("../media/index.js");
      // Every user of the machine reads a browser's command line (`ps`): the page opens without
      // the token, and asks for it once, at the first review.
      openInBrowser(`${server.url}/`, () =>
        err(`gwrun view: no browser to open here; open ${url}`),
      );
      err("gwrun view: opened without the token; the first review asks for the URL above");
    }
    await stopped;
    await server.close();
    return ExitCode.Ok;
  });
}

/** Where to listen: `--listen ADDR:PORT`, else 127.0.0.1 and `--port` (default any free one). */
export function listenOf(flags: { port?: string; listen?: string }): ListenAddress {
  if (flags.listen !== undefined) {
    const listen = parseListen(flags.listen);
    if (listen === undefined)
      throw new GwError(ErrorCode.Usage, `--listen: "${flags.listen}" is not ADDR:PORT`, {
        hint: "for example --listen 0.0.0.0:8080 (with --share) or --listen 127.0.0.1:8080",
      });
    if (flags.port !== undefined)
      throw new GwError(ErrorCode.Usage, "--port and --listen both say the port: give one");
    return listen;
  }
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GwError(ErrorCode.Usage, `--port: "${flags.port}" is not a port number`);
  return { host: "127.0.0.1", port };
}
