import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { coerceError } from "../core/errors.js";
import { sha256 } from "../core/hash.js";
import { checkRequest } from "./check-request.js";
import type { SimContext } from "./context.js";
import { countError, emptyCounters, type SimCounters } from "./counters.js";
import { FaultDice } from "./faults.js";
import { serveFile } from "./files.js";
import { BodyTooLarge, readBody, sendError, sendJson } from "./http.js";
import { Ledger } from "./ledger.js";
import { MediaRenderer } from "./media.js";
import { resolveSimOptions, type SimOptions, type SimOptionsInput } from "./options.js";
import { acceptSubmit } from "./submit.js";
import { queryBatch, queryTask } from "./task-query.js";
import { answerText, isTextFamily } from "./text-route.js";
import { TokenBucket } from "./token-bucket.js";

/** A running simulator; `close()` releases its port. */
export interface Simulator {
  /** `http://127.0.0.1:<port>`: the base URL to give gwrun. */
  url: string;
  port: number;
  options: SimOptions;
  /** What it has served so far (also at `GET /__sim/counters`). */
  counters(): SimCounters;
  close(): Promise<void>;
}

/** Generous: image fields may carry several Data URIs of up to 20 MB each. */
const BODY_LIMIT = 200 * 1024 * 1024;

const MEDIA_PATHS = new Set([
  "/v1/images/generations",
  "/v1/images/edits",
  "/v1/videos/generations",
]);

/** Calls that generate (media submits and text calls): the rate limit applies to these. */
const GENERATION =
  /^\/v1\/(images\/generations|images\/edits|videos\/generations|chat\/completions|responses|messages)$|^\/v1beta\/models\//;

/** Starts the gateway simulator on loopback (port 0: a free port). */
export async function startSimulator(input: SimOptionsInput = {}): Promise<Simulator> {
  const options = resolveSimOptions(input);
  const context: SimContext = {
    options,
    counters: emptyCounters(),
    dice: new FaultDice(options.seed),
    ledger: new Ledger(options.balance),
    bucket:
      options.rateLimit === undefined
        ? undefined
        : new TokenBucket(
            options.rateLimit.perSecond,
            options.rateLimit.burst,
            options.clock.now(),
          ),
    media: new MediaRenderer({ cacheDir: options.cacheDir }),
    lastTaskId: undefined,
    unpublished: new Map(),
    prompts: new Map(),
  };
  const server = createServer((req, res) => {
    handle(context, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      countError(context.counters, 500);
      sendError(res, 500, `internal simulator error: ${coerceError(error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    port,
    options,
    counters: () => {
      context.counters.charged = context.ledger.charged(options.clock.now());
      return structuredClone(context.counters);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

/**
 * Answers one request in the gateway's order: the simulator's own routes, the body, the
 * credentials and the rate limit, the injected faults, then the API itself.
 */
async function handle(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  // The gateway's edge sees a request when it arrives; reading and checking its body after
  // that (slow while this process warms up) must not bunch the limiter's or the counters' times.
  const arrivedAt = context.options.clock.now();
  context.counters.requests += 1;
  const url = new URL(req.url ?? "/", "http://sim");
  const path = url.pathname;
  if (await servedOutsideApi(context, req, res, path)) return;
  const raw = await bodyWithinLimit(context, req, res);
  if (raw === undefined) return;
  if (!admitted(context, req, res, path, arrivedAt)) return;
  // Rate limiting comes before the injected faults, so a 429 does not use up a request's rolls.
  if (failedByFault(context, req, res, path, raw)) return;
  await routeApi(context, { req, res, arrivedAt }, url, raw);
}

/** The simulator's own routes, preflights and unknown paths: true when answered here. */
async function servedOutsideApi(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const { counters, options } = context;
  if (req.method === "GET" && path === "/__sim/counters") {
    context.counters.charged = context.ledger.charged(options.clock.now());
    sendJson(res, 200, counters);
    return true;
  }
  if (req.method === "GET" && path.startsWith("/files/")) {
    await serveFile(context, res, path.slice("/files/".length));
    return true;
  }
  if (req.method === "OPTIONS") {
    res.writeHead(204, { allow: "GET, POST, OPTIONS" }).end();
    return true;
  }
  if (!path.startsWith("/v1/") && !path.startsWith("/v1beta/")) {
    countError(counters, 404);
    sendError(res, 404, `no route for ${req.method} ${path}`);
    return true;
  }
  return false;
}

/** The request's body, or undefined when it was over the limit (and answered 413). */
async function bodyWithinLimit(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Buffer | undefined> {
  try {
    return await readBody(req, BODY_LIMIT);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    countError(context.counters, 413);
    sendError(res, 413, error.message);
    return undefined;
  }
}

/** Checks the credentials, then the rate limit; false when the request was refused. */
function admitted(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  arrivedAt: number,
): boolean {
  const { counters, options } = context;
  const authProblem = checkKey(req, path, options.key);
  if (authProblem !== undefined) {
    countError(counters, 401);
    sendError(res, 401, authProblem);
    return false;
  }
  const generates = GENERATION.test(path) && req.method === "POST";
  if (generates || options.rateLimit?.counts === "calls") {
    if (options.rateLimit !== undefined && options.rateLimit.announced !== false) {
      // Announced on every generation answer, as gateways do (the IETF RateLimit-Policy form).
      res.setHeader("ratelimit-policy", `${options.rateLimit.perSecond};w=1`);
    }
    const waitMs = context.bucket?.take(arrivedAt) ?? 0;
    if (waitMs > 0) {
      countError(counters, 429);
      sendError(res, 429, "too many requests: slow down", {
        "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
        "retry-after-ms": String(waitMs),
      });
      return false;
    }
  }
  return true;
}

/** Rolls the connection-reset and server-error faults: true when one struck. */
function failedByFault(
  context: SimContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  raw: Buffer,
): boolean {
  const { counters, options, dice } = context;
  const requestHash = sha256(`${req.method} ${path}\n${raw.toString("latin1")}`);
  if (dice.roll("reset", requestHash, options.faults.resetRate)) {
    countError(counters, "reset");
    req.socket.destroy();
    return true;
  }
  if (dice.roll("server-error", requestHash, options.faults.serverErrorRate)) {
    countError(counters, 500);
    sendError(res, 500, "internal server error (injected)");
    return true;
  }
  return false;
}

/** The API proper, for an admitted request: task queries, text calls and media submits. */
async function routeApi(
  context: SimContext,
  exchange: { req: IncomingMessage; res: ServerResponse; arrivedAt: number },
  url: URL,
  raw: Buffer,
): Promise<void> {
  const { req, res } = exchange;
  const { counters, options } = context;
  const path = url.pathname;
  const origin = `http://${req.headers.host ?? `${options.host}`}`;
  const taskMatch = /^\/v1\/tasks\/([^/]+)$/.exec(path);
  if (req.method === "GET" && taskMatch !== null && taskMatch[1] !== "batch") {
    queryTask(
      context,
      res,
      origin,
      decodeURIComponent(taskMatch[1] as string),
      echoOf(context, req),
    );
    return;
  }
  if (req.method !== "POST") {
    countError(counters, 404);
    sendError(res, 404, `no route for ${req.method} ${path}`);
    return;
  }
  let body: unknown;
  try {
    body = raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
  } catch {
    countError(counters, 400);
    sendError(res, 400, "the request body is not valid JSON");
    return;
  }
  if (path === "/v1/tasks/batch") {
    queryBatch(context, res, origin, body, echoOf(context, req));
    return;
  }
  if (MEDIA_PATHS.has(path)) counters.submits.received += 1;
  const check = checkRequest(path, body, req.headers);
  if (!check.ok) {
    countError(counters, check.status);
    sendError(res, check.status, check.message);
    return;
  }
  if (isTextFamily(check.family)) {
    const sse = url.searchParams.get("alt") === "sse";
    await answerText(context, res, check.family, check.body, { sse, echo: credentialsOf(req) });
    return;
  }
  acceptSubmit(context, exchange, path, check.family, check.body);
}

/** Why the credentials are refused, or undefined. Messages also takes `x-api-key`. */
function checkKey(
  req: IncomingMessage,
  path: string,
  accepted: string | undefined,
): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
  const header = path === "/v1/messages" ? req.headers["x-api-key"] : undefined;
  const key = bearer ?? (typeof header === "string" ? header.trim() : undefined);
  if (key === undefined || key === "") {
    return path === "/v1/messages"
      ? "missing API key: send x-api-key: <API_KEY>"
      : "missing API key: send Authorization: Bearer <API_KEY>";
  }
  if (accepted !== undefined && key !== accepted) return "invalid API key";
  return undefined;
}

/** The credentials a query came with, when the echo-key fault has its failed tasks repeat them. */
function echoOf(context: SimContext, req: IncomingMessage): string | undefined {
  const sent = credentialsOf(req);
  if (sent === undefined) return undefined;
  return context.dice.roll("echo-key", sent, context.options.faults.echoKeyRate) ? sent : undefined;
}

function credentialsOf(req: IncomingMessage): string | undefined {
  const sent = req.headers.authorization ?? req.headers["x-api-key"];
  return typeof sent === "string" ? sent : undefined;
}
