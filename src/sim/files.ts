import { createReadStream } from "node:fs";
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { SimContext } from "./context.js";
import { countError } from "./counters.js";
import { sendError } from "./http.js";
import type { MediaSpec } from "./media.js";
import type { OutputPlan } from "./outputs.js";
import { readToken, writeToken } from "./tokens.js";

/**
 * Result links: `/files/<token>.<ext>`, the token carrying what to render and when the link
 * stops working, so links need no memory and outlive a restart of the simulator.
 */

interface LinkToken {
  spec: MediaSpec;
  expiresAt: number;
  /** The task's nonce: every task's links are its own, even when the pictures are alike. */
  task: string;
}

/** The link to output `index` of a task's outputs, valid until `expiresAt` (ms). */
export function linkFor(
  origin: string,
  plan: OutputPlan,
  task: string,
  index: number,
  expiresAt: number,
): string {
  const seed = `${plan.seed}-${index}`;
  const spec: MediaSpec =
    plan.kind === "image"
      ? { kind: "image", width: plan.width, height: plan.height, seed }
      : {
          kind: "video",
          width: plan.width,
          height: plan.height,
          durationSeconds: plan.duration ?? 5,
          audio: plan.audio ?? false,
          seed,
        };
  const token: LinkToken = { spec, expiresAt, task };
  return `${origin}/files/${writeToken(token)}.${plan.kind === "image" ? "png" : "mp4"}`;
}

/** Serves a result file: 404 for a made-up link, 403 once it has expired. */
export async function serveFile(
  context: SimContext,
  res: ServerResponse,
  name: string,
): Promise<void> {
  const { options, counters, dice } = context;
  const token = readToken(name.replace(/\.(png|mp4)$/, ""));
  if (token === undefined || typeof token.expiresAt !== "number") {
    countError(counters, 404);
    sendError(res, 404, "no such file");
    return;
  }
  const link = token as unknown as LinkToken;
  if (options.clock.now() >= link.expiresAt) {
    counters.downloads.expired += 1;
    countError(counters, 403);
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
    res.end("link expired: result links last 24 hours after the task completes\n");
    return;
  }
  if (options.faults.downloadDelayMs > 0) await sleep(options.faults.downloadDelayMs);
  const file = await context.media.render(link.spec);
  const truncate = dice.roll("truncate", name, options.faults.truncateRate);
  res.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes });
  counters.downloads.served += 1;
  if (truncate) {
    // Announce the whole length, send half, then drop the connection.
    counters.downloads.truncated += 1;
    countError(counters, "truncated");
    const half = Math.floor(file.bytes / 2);
    counters.downloads.bytes += half;
    const stream = createReadStream(file.path, { end: Math.max(0, half - 1) });
    stream.on("end", () => res.destroy());
    stream.pipe(res, { end: false });
    return;
  }
  counters.downloads.bytes += file.bytes;
  createReadStream(file.path).pipe(res);
}
