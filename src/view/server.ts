import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { commandIo } from "../core/io.js";
import type { Store } from "../store/index.js";
import { SharedAccess } from "./access.js";
import { galleryRefresher } from "./gallery-refresh.js";
import { refuseFraming } from "./headers.js";
import { hostPort, hostsAnswered, isLoopback, isWildcard } from "./listen.js";
import { lazyStorage } from "./published-files.js";
import { Refused, send } from "./replies.js";
import { route, type ViewContext } from "./routes.js";

/**
 * `gwrun view`: a web app over the store. On loopback, reading needs nothing and a change (a
 * review) needs the token printed with the URL. Shared (`--share`), every request needs a
 * reviewer's token and each review records the reviewer's name; only a shared viewer listens
 * beyond loopback. Files are only those the store records, asked for by output id. A bad
 * request gets a 4xx; an error inside gets a bare 500, never a stack.
 */

/** Who may use the viewer: the person at it, with the one token printed, or invited reviewers. */
export type ViewAccess =
  | {
      /** Sent back by the pages with every change. */
      token: string;
      share?: undefined;
    }
  | { token?: undefined; share: ViewSharing };

export interface ViewSharing {
  /** The names a TLS reverse proxy forwards as the Host (`--host`), besides the address. */
  hosts: readonly string[];
}

export type ViewOptions = ViewAccess & {
  store: Store;
  /** 0: any free port. */
  port: number;
  /** The address listened on (default 127.0.0.1); beyond loopback only when shared. */
  host?: string;
  clock: Clock;
  /** How often a live run page's counts are read again, ms (default 500). */
  everyMs?: number;
  /** The project folder: files are served from it (and from runs' output folders) only. */
  project: string;
  /** Told of a problem that does not stop the server (a gallery not rewritten); default: none. */
  onProblem?: (message: string) => void;
  /** Where object storage's credentials are read, for outputs published elsewhere. */
  env?: NodeJS.ProcessEnv;
};

export interface ViewServer {
  /** `http://<address>:<port>` (127.0.0.1 for an address of every interface). */
  url: string;
  /** The token changes need; none when shared (each reviewer has one). */
  token: string | undefined;
  close(): Promise<void>;
}

/** What a run made is not for the network unless every request must show who asks. */
export function refuseUnshared(host: string, shared: boolean): void {
  if (!shared && !isLoopback(host))
    throw new GwError(ErrorCode.Usage, `the viewer listens beyond loopback (${host}) only shared`, {
      hint: "add --share, and invite reviewers with gwrun view invite NAME",
    });
}

/** The runs whose output folders files may be served from, and how long that list is kept, ms. */
const FOLDERS_OF_RUNS = 1000;
const FOLDERS_FOR_MS = 5000;

export async function startViewServer(options: ViewOptions): Promise<ViewServer> {
  const host = options.host ?? "127.0.0.1";
  refuseUnshared(host, options.share !== undefined);
  const view = viewContext(options);
  const server = createServer((request, response) => {
    refuseFraming(response);
    route(view, request, response).catch((error: unknown) => answerError(response, error));
  });
  await listen(server, options.port, host);
  const port = (server.address() as AddressInfo).port;
  view.hosts = hostsAnswered(host, port, options.share?.hosts ?? []);
  view.port = port;
  return {
    url: `http://${hostPort(isWildcard(host) ? "127.0.0.1" : host, port)}`,
    token: options.token,
    close: async () => {
      for (const stop of view.streams) stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await view.galleries.settle();
      await view.objects.close();
    },
  };
}

/** What the routes answer from; its port is 0 until the server listens. */
function viewContext(options: ViewOptions): ViewContext {
  const { store, clock } = options;
  // The folders files are served from: the project's, and any run's output folder outside it.
  let folders: { at: number; roots: string[] } | undefined;
  return {
    store,
    clock,
    token: Buffer.from(options.token ?? ""),
    shared: options.share === undefined ? undefined : new SharedAccess(store, clock),
    hosts: new Set(),
    port: 0,
    everyMs: options.everyMs ?? 500,
    streams: new Set(),
    galleries: galleryRefresher(store, options.onProblem ?? (() => {})),
    objects: lazyStorage(options.env ?? commandIo().env),
    servedFolders: async () => {
      if (folders === undefined || clock.now() - folders.at > FOLDERS_FOR_MS) {
        const runs = await store.runs(FOLDERS_OF_RUNS);
        folders = {
          at: clock.now(),
          roots: [options.project, ...runs.map((run) => run.output_dir)],
        };
      }
      return folders.roots;
    },
  };
}

/** A refusal as its status and short text; anything else a bare 500, never a stack. */
function answerError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  if (error instanceof Refused)
    send(response, error.status, "text/plain; charset=utf-8", `${error.message}\n`);
  else send(response, 500, "text/plain; charset=utf-8", "internal error\n");
}

/** Listens on `port` (0: any free one) of `host`. */
async function listen(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
}
