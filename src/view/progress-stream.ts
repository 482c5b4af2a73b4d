import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/clock.js";
import type { Store } from "../store/index.js";
import { progressOf } from "./data.js";

/**
 * A run's progress as server-sent events: `progress` whenever what the store says changes
 * (read every `everyMs`), then `summary` once the run has finished, and the stream ends.
 * Another process runs the engine, so the store is the one place both see. Returns the stop.
 */
export async function streamProgress(
  store: Store,
  runId: number,
  request: IncomingMessage,
  response: ServerResponse,
  clock: Clock,
  everyMs: number,
  streams: Set<() => void>,
): Promise<() => void> {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  const abort = new AbortController();
  const stop = () => {
    abort.abort();
    streams.delete(stop);
    response.end();
  };
  request.once("close", stop);
  void (async () => {
    let last = "";
    while (!abort.signal.aborted) {
      const run = await store.run(runId);
      if (run === undefined) break;
      const progress = await progressOf(store, run, clock.now());
      const text = JSON.stringify(progress);
      if (progress.run.finished) {
        response.write(`event: summary\ndata: ${text}\n\n`);
        break;
      }
      if (text !== last) response.write(`event: progress\ndata: ${text}\n\n`);
      last = text;
      await clock.sleep(everyMs, abort.signal).catch(() => {});
    }
    stop();
  })().catch(() => stop());
  return stop;
}
