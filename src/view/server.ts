import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../core/clock.js";
import { commandIo } from "../core/io.js";
import type { Store } from "../store/index.js";
import { galleryRefresher } from "./gallery-refresh.js";
import { refuseFraming } from "./headers.js";
import { lazyStorage } from "./published-files.js";
import { Refused, send } from "./replies.js";
import { route, type ViewContext } from "./routes.js";

/**
 * `gwrun view`: a web app on loopback over the store. Reading needs nothing; a change (a
 * review) needs the token printed with the URL. Files are only those the store records, asked
 * for by output id. A bad request gets a 4xx; an error inside gets a bare 500, never a stack.
 */

export interface ViewOptions {
  store: Store;
  /** 0: any free port. */
  port: number;
  /** Sent back by the pages with every change. */
  token: string;
  clock: Clock;
  /** How often a live run page's counts are read again, ms (default 500). */
  everyMs?: number;
  /** The project folder: files are served from it (and from runs' output folders) only. */
  project: string;
  /** Told of a problem that does not stop the server (a gallery not rewritten); default: none. */
  onProblem?: (message: string) => void;
  /** Where object storage's credentials are read, for outputs published elsewhere. */
  env?: NodeJS.ProcessEnv;
}

export interface ViewServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  token: string;
  close(): Promise<void>;
}

/** The runs whose output folders files may be served from, and how long that list is kept, ms. */
const FOLDERS_OF_RUNS = 1000;
const FOLDERS_FOR_MS = 5000;

export async function startViewServer(options: ViewOptions): Promise<ViewServer> {
  const view = viewContext(options);
  const server = createServer((request, response) => {
    refuseFraming(response);
    route(view, request, response).catch((error: unknown) => answerError(response, error));
  });
  await listen(server, options.port);
  view.port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${view.port}`,
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
    token: Buffer.from(options.token),
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

/** Listens on `port` (0: any free one) of loopback only: what a run made is not for the network. */
async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}
