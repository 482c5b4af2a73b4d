import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/clock.js";
import { readOwnFile } from "../core/file-gate.js";
import { ownFileUrl } from "../core/own-files.js";
import type { RunRow, Store } from "../store/index.js";
import { TIMELINE_ORDERS, type TimelineOrder } from "../store/index.js";
import type { Admitted, SharedAccess } from "./access.js";
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
import type { GalleryRefresher } from "./gallery-refresh.js";
import { page } from "./pages.js";
import { pageParameter } from "./paging.js";
import { streamProgress } from "./progress-stream.js";
import { type LazyStorage, sendPublished } from "./published-files.js";
import { recordedRendition } from "./rendition-files.js";
import { html, json, Refused, readJson, send } from "./replies.js";

/**
 * The viewer's routes: pages, their data, assets, recorded files, and the one change (a
 * review), which needs the token. Shared, every route needs a reviewer's token first. Each
 * handler answers or throws `Refused`.
 */

/** What every request is answered from, made once by `startViewServer`. */
export interface ViewContext {
  store: Store;
  clock: Clock;
  /** The token printed with the URL, as the bytes a request's is compared with. */
  token: Buffer;
  /** Shared (`--share`): who lets reviewers in; the token above is then never taken. */
  shared: SharedAccess | undefined;
  /** The Host headers answered, lowercase (set once listening). */
  hosts: Set<string>;
  /** The port listened on (set once listening). */
  port: number;
  /** How often a live run page's counts are read again, ms. */
  everyMs: number;
  /** The stops of the progress streams open, called when the server closes. */
  streams: Set<() => void>;
  galleries: GalleryRefresher;
  objects: LazyStorage;
  /** The folders files are served from: the project's, and runs' output folders. */
  servedFolders(): Promise<string[]>;
}

/** One request being answered. */
interface Asked {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** The path's segments, after its leading `/`. */
  parts: string[];
  /** Shared: the reviewer asking. */
  reviewer: Admitted | undefined;
}

const WEB = ownFileUrl("web/");
/** A Map, not an object: a name like `toString` is no asset. */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ["view.css", "text/css; charset=utf-8"],
  ["common.js", "text/javascript; charset=utf-8"],
  ["runs.js", "text/javascript; charset=utf-8"],
  ["run.js", "text/javascript; charset=utf-8"],
  ["outputs.js", "text/javascript; charset=utf-8"],
  ["failures.js", "text/javascript; charset=utf-8"],
]);

/** Answers one request; a refusal is thrown as `Refused`, anything else is a 500. */
export async function route(
  view: ViewContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // Another site's page reaching this port by a name it controls is turned away.
  if (!view.hosts.has((request.headers.host ?? "").toLowerCase()))
    throw new Refused(403, "unknown host");
  const url = new URL(request.url ?? "/", `http://127.0.0.1:${view.port}`);
  const reviewer = await view.shared?.admit(request, url, response);
  const parts = url.pathname.split("/").slice(1);
  const asked: Asked = { request, response, url, parts, reviewer };
  const method = request.method ?? "GET";
  if (method === "POST" && url.pathname === "/api/reviews") return postReview(view, asked);
  if (method !== "GET" && method !== "HEAD") throw new Refused(405, "method not allowed");
  return read(view, asked);
}

/** A reading request, by its path; 404 for any path not here. */
async function read(view: ViewContext, asked: Asked): Promise<void> {
  const { url, parts, response } = asked;
  const [first, second, third, fourth] = parts;
  if (url.pathname === "/favicon.ico") {
    // No icon: an empty answer keeps the browser from logging a 404 on every page.
    response.writeHead(204).end();
  } else if (url.pathname === "/") {
    const runs = await runItems(view.store, view.clock.now());
    html(response, page("runs", "gwrun runs", runs, asked.reviewer?.name));
  } else if (first === "runs" && parts.length === 2) {
    await runPage(view, asked);
  } else if (first === "runs" && third === "outputs" && parts.length === 3) {
    await outputsPage(view, asked);
  } else if (first === "runs" && third === "failures" && parts.length === 3) {
    await failuresPage(view, asked);
  } else if (first === "assets" && parts.length === 2 && ASSETS.has(second ?? "")) {
    asset(response, second as string);
  } else if (first === "api" && second === "runs" && parts.length === 2) {
    json(response, await runItems(view.store, view.clock.now()));
  } else if (first === "api" && second === "runs" && parts.length === 4) {
    await runData(view, asked);
  } else if (first === "api" && second === "outputs" && parts.length === 4) {
    const detail = await outputDetail(view.store, third ?? "", Number(fourth));
    if (detail === undefined) throw new Refused(404, "no such output");
    json(response, detail);
  } else if (
    first === "files" &&
    parts.length === 4 &&
    ["file", "thumb", "poster"].includes(fourth ?? "")
  ) {
    await outputFile(view, asked);
  } else if (first === "files" && parts.length === 5 && fourth === "rendition") {
    await renditionFile(view, asked);
  } else {
    throw new Refused(404, "not found");
  }
}

/** `/assets/<name>`: one of the pages' own styles and scripts, by its name in `ASSETS`. */
function asset(response: ServerResponse, name: string): void {
  send(response, 200, ASSETS.get(name) as string, readOwnFile(new URL(name, WEB)).toString("utf8"));
}

/** `/runs/<id>`: a run's live progress. */
async function runPage(view: ViewContext, { parts, response, reviewer }: Asked): Promise<void> {
  const run = await runOf(view.store, parts[1]);
  const progress = await progressOf(view.store, run, view.clock.now());
  html(response, page("run", `run ${run.id}: ${run.name}`, progress, reviewer?.name));
}

/** `/runs/<id>/outputs`: a page of a run's outputs, to review. */
async function outputsPage(view: ViewContext, asked: Asked): Promise<void> {
  const { parts, response, url } = asked;
  const run = await runOf(view.store, parts[1]);
  html(
    response,
    page(
      "outputs",
      `run ${run.id}: ${run.name} — outputs`,
      {
        run: { id: run.id, name: run.name },
        ...(await gridItems(view.store, run, await view.servedFolders(), pageParameter(url))),
      },
      asked.reviewer?.name,
    ),
  );
}

/** `/runs/<id>/failures`: a page of a run's failures. */
async function failuresPage(view: ViewContext, asked: Asked): Promise<void> {
  const { parts, response, url } = asked;
  const run = await runOf(view.store, parts[1]);
  html(
    response,
    page(
      "failures",
      `run ${run.id}: ${run.name} — failures`,
      {
        run: { id: run.id, name: run.name },
        ...(await failureItems(view.store, run, pageParameter(url))),
      },
      asked.reviewer?.name,
    ),
  );
}

/** What `/api/runs/<id>/<what>` answers of a run, sent as JSON. */
type RunData = (view: ViewContext, url: URL, run: RunRow) => Promise<unknown>;

/** A run's data by `<what>`; a Map, not an object: a name like `toString` is none. */
const RUN_DATA: ReadonlyMap<string, RunData> = new Map<string, RunData>([
  ["progress", (view, _url, run) => progressOf(view.store, run, view.clock.now())],
  ["timeline", timeline],
  ["failures", (view, url, run) => failureItems(view.store, run, pageParameter(url))],
  ["cost", (view, _url, run) => costPanel(view.store, run)],
  [
    "outputs",
    async (view, url, run) =>
      gridItems(view.store, run, await view.servedFolders(), pageParameter(url)),
  ],
]);

/** `/api/runs/<id>/<what>`: the run first (404 if none), then what of it is asked. */
async function runData(view: ViewContext, asked: Asked): Promise<void> {
  const run = await runOf(view.store, asked.parts[2]);
  const what = asked.parts[3] ?? "";
  if (what === "events") return progressEvents(view, asked, run);
  const data = RUN_DATA.get(what);
  if (data === undefined) throw new Refused(404, "not found");
  json(asked.response, await data(view, asked.url, run));
}

/** A page of a run's timeline, in the order asked (recorded when none is known). */
function timeline(view: ViewContext, url: URL, run: RunRow): Promise<unknown> {
  const order = url.searchParams.get("order") ?? "recorded";
  return timelineItems(view.store, run, {
    page: pageParameter(url),
    order: (TIMELINE_ORDERS as readonly string[]).includes(order)
      ? (order as TimelineOrder)
      : "recorded",
    undoneOnly: url.searchParams.get("undone") === "1",
  });
}

/** A run's progress as server-sent events, stopped when the server closes. */
async function progressEvents(view: ViewContext, asked: Asked, run: RunRow): Promise<void> {
  const { store, clock, everyMs, streams } = view;
  streams.add(
    await streamProgress(store, run.id, asked.request, asked.response, clock, everyMs, streams),
  );
}

/**
 * `/files/<key>/<index>/<kind>`: an output's file as the store records it, from the folders
 * served; else the object it was published as, for whoever has the token.
 */
async function outputFile(view: ViewContext, { request, response, url, parts, reviewer }: Asked) {
  const [, key, index, kind] = parts as [string, string, string, FileKind];
  const file = await recordedFile(view.store, key, index, kind, await view.servedFolders());
  if (file !== undefined && (await sendFile(request, response, file))) return;
  // Not on this host: the object it was published as, if any, for whoever has the token
  // (storage may be private, and the viewer's port is every local user's).
  const output = { key, index: Number(index), kind };
  if (file !== undefined || (await recordedOutput(view.store, output.key, output.index))) {
    const token = url.searchParams.get("token");
    if (
      await sendPublished(request, response, view.store, output, view.objects, () =>
        reviewer === undefined ? checkToken(view, request, token) : undefined,
      )
    )
      return;
  }
  throw new Refused(404, "no such file recorded");
}

/** `/files/<key>/<index>/rendition/<name>`: a rendition its output's sidecar lists, by name. */
async function renditionFile(view: ViewContext, { request, response, parts }: Asked) {
  const [, key, index, , name] = parts as [string, string, string, string, string];
  const file = await recordedRendition(view.store, key, index, name, await view.servedFolders());
  if (file === undefined || !(await sendFile(request, response, file)))
    throw new Refused(404, "no such rendition recorded");
}

/**
 * `POST /api/reviews`: a decision on an output, with the token in the header (a cookie, sent
 * with any request the browser makes, is not enough); shared, it records the reviewer's name.
 */
async function postReview(view: ViewContext, { request, response, reviewer }: Asked) {
  if (reviewer === undefined) checkToken(view, request);
  else if (reviewer.via !== "header")
    throw new Refused(403, "a change sends the token in the x-gwrun-token header");
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
  const stored = await view.store.recordReview(
    { key: body.key, index: body.index as number, decision, note, by: reviewer?.name ?? null },
    view.clock.now(),
  );
  if (!stored) throw new Refused(404, "no such output on disk");
  view.galleries.reviewed(body.key);
  json(response, { ok: true, by: reviewer?.name ?? null });
}

/** The run of a path's id; 404 when there is none. */
async function runOf(store: Store, id: string | undefined): Promise<RunRow> {
  const run = /^\d{1,9}$/.test(id ?? "") ? await store.run(Number(id)) : undefined;
  if (run === undefined) throw new Refused(404, "no such run");
  return run;
}

/** The token, from the header a change sends, or (a file's address) its query. */
function checkToken(view: ViewContext, request: IncomingMessage, fromQuery?: string | null) {
  const given = Buffer.from(String(request.headers["x-gwrun-token"] ?? fromQuery ?? ""));
  // No token (a shared viewer's) is never matched, not even by an empty one.
  if (
    view.token.length === 0 ||
    given.length !== view.token.length ||
    !timingSafeEqual(given, view.token)
  )
    throw new Refused(403, "this needs the token printed with the viewer's URL");
}
