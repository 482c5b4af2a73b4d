import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { openStore } from "../store/index.js";
import { startViewServer } from "../view/index.js";
import { ExitCode } from "./exit-codes.js";
import { err, out } from "./output.js";
import { dbPath } from "./store.js";

export interface ViewFlags {
  db?: string;
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
  const db = dbPath(flags);
  if (!existsSync(db)) {
    throw new GwError(ErrorCode.Usage, `no state database at ${db}: nothing has run here yet`, {
      hint: "run a manifest first, or name the database with --db (or GWRUN_DB)",
    });
  }
  const store = openStore(db);
  try {
    const server = await startViewServer({
      store,
      port,
      token: randomBytes(18).toString("base64url"),
      clock: systemClock,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        throw new GwError(ErrorCode.Usage, `port ${port} is in use`, {
          hint: "leave --port out for any free port",
        });
      throw error;
    });
    const url = `${server.url}/?token=${server.token}`;
    out(url);
    err("gwrun view: serving the state database on loopback; Ctrl-C stops it");
    if (flags.open === true) {
      // Loaded only here: the media tools are not needed to serve pages.
      const { openInBrowser } = await import("../media/index.js");
      openInBrowser(url, () => err(`gwrun view: no browser to open here; open ${url}`));
    }
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await server.close();
    return ExitCode.Ok;
  } finally {
    await store.close();
  }
}
