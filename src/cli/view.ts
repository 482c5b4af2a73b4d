import { randomBytes } from "node:crypto";
import { ExitCode, type StoreFlags, storeAt, withExistingStore } from "../api/index.js";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { startViewServer } from "../view/index.js";
import { err, out } from "./output.js";
import { stopRequested } from "./run-signals.js";

export interface ViewFlags extends StoreFlags {
  port?: string;
  open?: boolean;
}

/**
 * `gwrun view [--port N] [--open]`: serves the viewer on 127.0.0.1 until interrupted; prints
 * its URL with the token that changes (reviews) need.
 */
export async function viewStore(flags: ViewFlags): Promise<ExitCode> {
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GwError(ErrorCode.Usage, `--port: "${flags.port}" is not a port number`);
  const at = storeAt(flags);
  return withExistingStore(at, async (store, located) => {
    const server = await startViewServer({
      store,
      project: located.project,
      port,
      token: randomBytes(18).toString("base64url"),
      clock: systemClock,
      onProblem: (message) => err(`gwrun view: ${message}`),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new GwError(ErrorCode.Usage, `port ${port} is in use`, {
          hint: "leave --port out for any free port",
        });
      throw error;
    });
    const url = `${server.url}/?token=${server.token}`;
    const stopped = stopRequested();
    out(url);
    err("gwrun view: serving the state database on loopback; Ctrl-C stops it");
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
