import type { Dispatcher } from "undici";
import type { Clock } from "../core/clock.js";
import { systemClock } from "../core/clock.js";
import { coerceError, ErrorCode } from "../core/errors.js";
import { timeoutsOf } from "../core/timeouts.js";
import {
  batchRecords,
  isUnknownTask,
  type QueryTurn,
  SINGLE_QUERY_PARALLELISM,
  type TaskBatch,
} from "./batch.js";
import {
  type Destination,
  type DownloadOptions,
  type DownloadResult,
  downloadFile,
} from "./download.js";
import { badResponse, envelopeData, readReceipt, type SubmitReceipt } from "./envelope.js";
import {
  errorFromResponse,
  GatewayError,
  networkError,
  rateLimitOf,
  withSecretMasked,
} from "./errors.js";
import { GATEWAY_TEXT_MAX, gatewayText, redacted } from "./gateway-text.js";
import { outboundDispatcher, type Proxies, proxyFor } from "./proxy.js";
import { requestFailure } from "./proxy-errors.js";
import { readSse } from "./sse.js";
import { readTaskRecord, type TaskRecord } from "./task-record.js";
import type { TextAnswer, TextFormat } from "./text-answer.js";
import { readTextReply } from "./text-reply.js";
import { readTextStream } from "./text-stream.js";
import { undici } from "./undici.js";

export interface GatewayOptions {
  /** The gateway's base URL, e.g. `https://gw.example.com`; paths are appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer` (and `x-api-key` on /v1/messages); never logged. */
  apiKey: string;
  /** The messages endpoint's required version header. */
  messagesVersion?: { header: string; value: string };
  /** An undici dispatcher to send through; by default a keep-alive pool owned by the client. */
  dispatcher?: Dispatcher;
  /** The proxies of the client's own pool (see `readProxies`); none: every request is direct. */
  proxies?: Proxies;
  /** Milliseconds to wait for response headers, and between body chunks. Default 60 s. */
  timeoutMs?: number;
  clock?: Clock;
}

/**
 * gwrun's only HTTP client of the gateway: one request per call (retrying is the caller's
 * policy), envelopes and errors read per the spec, tolerant where the spec is silent.
 */
export class GatewayClient {
  readonly #options: GatewayOptions;
  /** Made when the client is: undici loads meanwhile, before the first call awaits it. */
  readonly #dispatcher: Promise<Dispatcher>;
  readonly #ownsDispatcher: boolean;
  readonly #clock: Clock;
  /** Set once the batch endpoint proved missing or unreadable: poll task by task. */
  #batchUnusable = false;

  constructor(options: GatewayOptions) {
    this.#options = options;
    const policy = timeoutsOf().gateway;
    const answerMs = options.timeoutMs ?? policy.answerMs;
    this.#dispatcher =
      options.dispatcher === undefined
        ? outboundDispatcher({ ...policy, answerMs }, options.proxies)
        : Promise.resolve(options.dispatcher);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#clock = options.clock ?? systemClock;
  }

  /** Whether polling has fallen back to single task queries. */
  get batchUnusable(): boolean {
    return this.#batchUnusable;
  }

  /** Submits a media request (`/v1/images/generations`, ...); resolves to its receipt. */
  async submit(
    path: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<SubmitReceipt> {
    const what = `submit to ${path}`;
    const response = await this.#send("POST", path, body, what, signal);
    const json = await this.#readJson(response, what);
    let receipt: SubmitReceipt;
    try {
      receipt = readReceipt(json, what);
    } catch (error) {
      throw withSecretMasked(error, this.#options.apiKey);
    }
    const rate = rateLimitOf(response.headers);
    return rate === undefined ? receipt : { ...receipt, rateLimitPerSecond: rate };
  }

  /**
   * `GET /v1/tasks/{id}`; a task the gateway does not know is a GW_TASK_UNKNOWN error. `turn`
   * is awaited before the request leaves (the run's pace, when its gateway counts queries).
   */
  async getTask(taskId: string, signal?: AbortSignal, turn?: QueryTurn): Promise<TaskRecord> {
    const what = `task query ${taskId}`;
    try {
      await turn?.();
      const json = await this.#json(
        "GET",
        `/v1/tasks/${encodeURIComponent(taskId)}`,
        undefined,
        what,
        signal,
      );
      return this.#keyFreeRecord(readTaskRecord(envelopeData(json, what), what, taskId));
    } catch (caught) {
      const error = withSecretMasked(caught, this.#options.apiKey);
      if (error instanceof GatewayError && isUnknownTask(error)) {
        throw new GatewayError(
          ErrorCode.TaskUnknown,
          `task ${taskId} does not exist or has expired (${error.message})`,
          { status: error.status },
        );
      }
      throw error;
    }
  }

  /**
   * Several tasks in one `POST /v1/tasks/batch`, falling back to single queries (for good)
   * when that endpoint is missing or its body cannot be read. Ids left out of a batch answer
   * are asked for singly, to learn whether they still exist. `turn` is awaited before each
   * request leaves.
   */
  async getTasks(
    taskIds: readonly string[],
    signal?: AbortSignal,
    turn?: QueryTurn,
  ): Promise<TaskBatch> {
    const batch: TaskBatch = { records: new Map(), unknown: [] };
    if (taskIds.length === 0) return batch;
    let missing = taskIds;
    if (!this.#batchUnusable) {
      await turn?.();
      const records = await this.#batch(taskIds, signal);
      if (records !== undefined) {
        for (const record of records) batch.records.set(record.id, record);
        missing = taskIds.filter((id) => !batch.records.has(id));
      }
    }
    for (let start = 0; start < missing.length; start += SINGLE_QUERY_PARALLELISM) {
      const slice = missing.slice(start, start + SINGLE_QUERY_PARALLELISM);
      const results = await Promise.allSettled(slice.map((id) => this.getTask(id, signal, turn)));
      results.forEach((result, index) => {
        if (result.status === "fulfilled") batch.records.set(result.value.id, result.value);
        else if (
          result.reason instanceof GatewayError &&
          result.reason.code === ErrorCode.TaskUnknown
        )
          batch.unknown.push(slice[index] as string);
        else throw result.reason;
      });
    }
    return batch;
  }

  async #batch(
    taskIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<TaskRecord[] | undefined> {
    const what = "batch task query";
    let json: unknown;
    try {
      json = await this.#json("POST", "/v1/tasks/batch", { task_ids: taskIds }, what, signal);
    } catch (error) {
      const status = error instanceof GatewayError ? error.status : undefined;
      const unusable =
        status === 404 ||
        status === 405 ||
        status === 501 ||
        (error instanceof GatewayError && error.code === ErrorCode.BadResponse);
      if (!unusable) throw error;
      this.#batchUnusable = true;
      return undefined;
    }
    const records = batchRecords(json);
    if (records === undefined) {
      this.#batchUnusable = true;
      return undefined;
    }
    const wanted = new Set(taskIds);
    return records
      .map((record) => this.#keyFreeRecord(readTaskRecord(record, what)))
      .filter((record) => wanted.has(record.id));
  }

  /** Downloads a result link to `dest` (see `downloadFile`). */
  async download(
    url: string,
    dest: Destination,
    options: DownloadOptions,
  ): Promise<DownloadResult> {
    const proxy = proxyFor(url, this.#options.proxies);
    return downloadFile(await this.#dispatcher, url, dest, options, proxy);
  }

  /**
   * A synchronous text call in one of the four wire formats. Streams (SSE) are reassembled;
   * `onText` sees each increment as it arrives.
   */
  async callText(
    format: TextFormat,
    path: string,
    body: Record<string, unknown>,
    options: { onText?: (delta: string) => void; signal?: AbortSignal } = {},
  ): Promise<TextAnswer> {
    const what = `${format} call`;
    // Native streams come as SSE only when asked for.
    const target = path.endsWith(":streamGenerateContent") ? `${path}?alt=sse` : path;
    const response = await this.#send("POST", target, body, what, options.signal);
    const type = String(response.headers["content-type"] ?? "");
    if (type.includes("text/event-stream")) {
      try {
        return await readTextStream(format, readSse(response.body), options.onText);
      } catch (error) {
        if (error instanceof GatewayError) throw error;
        throw this.#unreadable(what, error);
      }
    }
    const json = await this.#readJson(response, what);
    try {
      return readTextReply(format, json);
    } catch (error) {
      throw this.#unreadable(what, error);
    }
  }

  /** A reader's complaint, which quotes what the gateway sent: cleaned like any gateway text. */
  #unreadable(what: string, error: unknown): GatewayError {
    const problem = gatewayText(coerceError(error).message, GATEWAY_TEXT_MAX, [
      this.#options.apiKey,
    ]);
    return badResponse(what, problem);
  }

  /**
   * Opens a connection before the first call: undici connects only for a request, and a first
   * request is slow (the connection, code run for the first time), which would make the first
   * paced submits late and bunch them. OPTIONS is safe and needs no key; its answer is dropped.
   */
  async connect(): Promise<void> {
    // Bounded: a gateway that does not answer is the first call's to report, not this one's.
    const signal = AbortSignal.timeout(2000);
    const [{ request }, dispatcher] = await Promise.all([undici(), this.#dispatcher]);
    await request(this.#url("/"), { dispatcher, method: "OPTIONS", signal })
      .then((response) => response.body.dump())
      .catch(() => undefined);
    // The pool takes the connection back a turn after the answer: ready for the first call.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Releases the connection pool (when the client made it). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await (await this.#dispatcher).close();
  }

  async #json(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    what: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.#readJson(await this.#send(method, path, body, what, signal), what);
  }

  async #send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    what: string,
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const url = this.#url(path);
    const [{ request }, dispatcher] = await Promise.all([undici(), this.#dispatcher]);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher,
        method,
        headers: this.#headers(path, body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw requestFailure(error, what, url, proxyFor(url, this.#options.proxies));
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const text = await response.body.text().catch(() => "");
    const now = this.#clock.now();
    throw withSecretMasked(
      errorFromResponse(response.statusCode, response.headers, text, what, now),
      this.#options.apiKey,
    );
  }

  async #readJson(response: Dispatcher.ResponseData, what: string): Promise<unknown> {
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw networkError(error, what);
    }
    try {
      return JSON.parse(text);
    } catch {
      const start = redacted(text, [this.#options.apiKey]).slice(0, 60);
      throw badResponse(what, `the body is not JSON (${JSON.stringify(start)})`);
    }
  }

  #keyFreeRecord(record: TaskRecord): TaskRecord {
    const message = record.errorMessage;
    if (message === null) return record;
    return { ...record, errorMessage: redacted(message, [this.#options.apiKey]) };
  }

  #url(path: string): string {
    const base = this.#options.baseUrl.endsWith("/")
      ? this.#options.baseUrl
      : `${this.#options.baseUrl}/`;
    return new URL(path.replace(/^\//, ""), base).toString();
  }

  #headers(path: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {};
    if (hasBody) headers["content-type"] = "application/json";
    if (path === "/v1/messages") {
      headers["x-api-key"] = this.#options.apiKey;
      const version = this.#options.messagesVersion;
      if (version !== undefined) headers[version.header] = version.value;
    } else {
      headers.authorization = `Bearer ${this.#options.apiKey}`;
    }
    return headers;
  }
}
