import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../core/clock.js";
import { readOwnFile } from "../core/file-gate.js";
import type { Store } from "../store/index.js";
import { TIMELINE_ORDERS, type TimelineOrder } from "../store/index.js";
import {
  costPanel,
  failureItems,
  gridItems,
  outputDetail,
  progressOf,
  runItems,
  timelineItems,
} from "./data.js";
import { type FileKind, recordedFile, recordedOutput, sendFile } from "./files.js";
import { galleryRefresher } from "./gallery-refresh.js";
import { contentPolicy, refuseFraming } from "./headers.js";
import { page } from "./pages.js";
import { pageParameter } from "./paging.js";
import { streamProgress } from "./progress-stream.js";
import { lazyStorage, sendPublished } from "./published-files.js";

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

const WEB = new URL("../../web/", import.meta.url);
/** A Map, not an object: a name like `toString` is no asset. */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ["view.css", "text/css; charset=utf-8"],
  ["common.js", "text/javascript; charset=utf-8"],
  ["runs.js", "text/javascript; charset=utf-8"],
  ["run.js", "text/javascript; charset=utf-8"],
  ["outputs.js", "text/javascript; charset=utf-8"],
  ["failures.js", "text/javascript; charset=utf-8"],
]);

/** The runs whose output folders files may be served from, and how long that list is kept, ms. */
const FOLDERS_OF_RUNS = 1000;
const FOLDERS_FOR_MS = 5000;

/** A refusal with its status, answered as short text. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Largest review request body, bytes. */
const MAX_BODY = 64 * 1024;

export async function startViewServer(options: ViewOptions): Promise<ViewServer> {
  const { store, clock } = options;
  const token = Buffer.from(options.token);
  let port = 0;
  const streams = new Set<() => void>();
  const galleries = galleryRefresher(store, options.onProblem ?? (() => {}));
  const objects = lazyStorage(options.env ?? process.env);
  // The folders files are served from: the project's, and any run's output folder outside it.
  let folders: { at: number; roots: string[] } | undefined;
  const servedFolders = async (): Promise<string[]> => {
    if (folders === undefined || clock.now() - folders.at > FOLDERS_FOR_MS) {
      const runs = await store.runs(FOLDERS_OF_RUNS);
      folders = { at: clock.now(), roots: [options.project, ...runs.map((run) => run.output_dir)] };
    }
    return folders.roots;
  };

  const send = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, {
      "content-type": type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": contentPolicy(
        "default-src 'self'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'",
      ),
    });
    response.end(body);
  };
  const json = (response: ServerResponse, value: unknown) =>
    send(response, 200, "application/json; charset=utf-8", JSON.stringify(value));
  const html = (response: ServerResponse, text: string) =>
    send(response, 200, "text/html; charset=utf-8", text);

  const runOf = async (id: string | undefined) => {
    const run = /^\d{1,9}$/.test(id ?? "") ? await store.run(Number(id)) : undefined;
    if (run === undefined) throw new Refused(404, "no such run");
    return run;
  };

  /** The token, from the header a change sends, or (a file's address) its query. */
  const checkToken = (request: IncomingMessage, fromQuery?: string | null) => {
    const given = Buffer.from(String(request.headers["x-gwrun-token"] ?? fromQuery ?? ""));
    if (given.length !== token.length || !timingSafeEqual(given, token))
      throw new Refused(403, "this needs the token printed with the viewer's URL");
  };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Another site's page reaching this port by a name it controls is turned away.
    const host = request.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      throw new Refused(403, "unknown host");
    const url = new URL(request.url ?? "/", `http://127.0.0.1:${port}`);
    const parts = url.pathname.split("/").slice(1);
    const method = request.method ?? "GET";
    if (method === "POST" && url.pathname === "/api/reviews") {
      checkToken(request);
      const body = await readJson(request);
      const decision = body.decision;
      if (
        typeof body.key !== "string" ||
        !Number.isInteger(body.index) ||
        (decision !== "approved" && decision !== "rejected" && decision !== null) ||
        (body.note !== undefined && body.note !== null && typeof body.note !== "string")
      )
        throw new Refused(400, "a review is {key, index, decision: approved|rejected|null, note}");
      const note = typeof body.note === "string" && body.note.trim() !== "" ? body.note : null;
      const stored = await store.recordReview(
        { key: body.key, index: body.index as number, decision, note },
        clock.now(),
      );
      if (!stored) throw new Refused(404, "no such output on disk");
      galleries.reviewed(body.key);
      json(response, { ok: true });
      return;
    }
    if (method !== "GET" && method !== "HEAD") throw new Refused(405, "method not allowed");
    const [first, second, third, fourth] = parts;
    if (url.pathname === "/favicon.ico") {
      // No icon: an empty answer keeps the browser from logging a 404 on every page.
      response.writeHead(204).end();
    } else if (url.pathname === "/") {
      html(response, page("runs", "gwrun runs", await runItems(store, clock.now())));
    } else if (first === "runs" && parts.length === 2) {
      const run = await runOf(second);
      html(
        response,
        page("run", `run ${run.id}: ${run.name}`, await progressOf(store, run, clock.now())),
      );
    } else if (first === "runs" && third === "outputs" && parts.length === 3) {
      const run = await runOf(second);
      html(
        response,
        page("outputs", `run ${run.id}: ${run.name} — outputs`, {
          run: { id: run.id, name: run.name },
          ...(await gridItems(store, run, await servedFolders(), pageParameter(url))),
        }),
      );
    } else if (first === "runs" && third === "failures" && parts.length === 3) {
      const run = await runOf(second);
      html(
        response,
        page("failures", `run ${run.id}: ${run.name} — failures`, {
          run: { id: run.id, name: run.name },
          ...(await failureItems(store, run, pageParameter(url))),
        }),
      );
    } else if (first === "assets" && parts.length === 2 && ASSETS.has(second ?? "")) {
      const name = second as string;
      send(
        response,
        200,
        ASSETS.get(name) as string,
        readOwnFile(new URL(name, WEB)).toString("utf8"),
      );
    } else if (first === "api" && second === "runs" && parts.length === 2) {
      json(response, await runItems(store, clock.now()));
    } else if (first === "api" && second === "runs" && parts.length === 4) {
      const run = await runOf(third);
      if (fourth === "progress") json(response, await progressOf(store, run, clock.now()));
      else if (fourth === "timeline") {
        const order = url.searchParams.get("order") ?? "recorded";
        json(
          response,
          await timelineItems(store, run, {
            page: pageParameter(url),
            order: (TIMELINE_ORDERS as readonly string[]).includes(order)
              ? (order as TimelineOrder)
              : "recorded",
            undoneOnly: url.searchParams.get("undone") === "1",
          }),
        );
      } else if (fourth === "failures")
        json(response, await failureItems(store, run, pageParameter(url)));
      else if (fourth === "cost") json(response, await costPanel(store, run));
      else if (fourth === "outputs")
        json(response, await gridItems(store, run, await servedFolders(), pageParameter(url)));
      else if (fourth === "events") {
        streams.add(
          await streamProgress(
            store,
            run.id,
            request,
            response,
            clock,
            options.everyMs ?? 500,
            streams,
          ),
        );
      } else throw new Refused(404, "not found");
    } else if (first === "api" && second === "outputs" && parts.length === 4) {
      const detail = await outputDetail(store, third ?? "", Number(fourth));
      if (detail === undefined) throw new Refused(404, "no such output");
      json(response, detail);
    } else if (
      first === "files" &&
      parts.length === 4 &&
      ["file", "thumb", "poster"].includes(fourth ?? "")
    ) {
      const file = await recordedFile(
        store,
        second ?? "",
        third ?? "",
        fourth as FileKind,
        await servedFolders(),
      );
      if (file !== undefined && (await sendFile(request, response, file))) return;
      // Not on this host: the object it was published as, if any, for whoever has the token
      // (storage may be private, and the viewer's port is every local user's).
      const output = { key: second ?? "", index: Number(third), kind: fourth as FileKind };
      if (file !== undefined || (await recordedOutput(store, output.key, output.index))) {
        const token = url.searchParams.get("token");
        if (
          await sendPublished(request, response, store, output, objects, () =>
            checkToken(request, token),
          )
        )
          return;
      }
      throw new Refused(404, "no such file recorded");
    } else {
      throw new Refused(404, "not found");
    }
  }

  const server = createServer((request, response) => {
    refuseFraming(response);
    route(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof Refused)
        send(response, error.status, "text/plain; charset=utf-8", `${error.message}\n`);
      else send(response, 500, "text/plain; charset=utf-8", "internal error\n");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // Loopback only: what a run made is not for the network.
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    close: async () => {
      for (const stop of streams) stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await galleries.settle();
      await objects.close();
    },
  };
}

/** A small JSON object from a request body; 400 for anything else. */
async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Refused(413, "request too large");
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new Refused(400, "the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Refused(400, "the body is not a JSON object");
  return value as Record<string, unknown>;
}
