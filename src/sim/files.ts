import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { openNamedFile } from "../core/file-gate.js";
import type { SimContext } from "./context.js";
import { countError } from "./counters.js";
import { sendError } from "./http.js";
import type { MediaSpec } from "./media.js";
import type { OutputPlan } from "./outputs.js";
import { Packer, readToken, Unpacker, writeToken } from "./tokens.js";

/**
 * Result links: `/files/<token>.<ext>`, the token carrying what to render and when the link
 * stops working, so links need no memory and outlive a restart of the simulator.
 */

/** The link to output `index` of a task's outputs, valid until `expiresAt` (ms). */
export function linkFor(
  origin: string,
  plan: OutputPlan,
  task: string,
  index: number,
  expiresAt: number,
): string {
  const bytes = new Packer()
    .uint(plan.kind === "image" ? 0 : plan.audio === true ? 2 : 1, 1)
    .uint(plan.width, 2)
    .uint(plan.height, 2)
    .uint((plan.duration ?? 0) * 100, 4)
    .text(`${plan.seed}-${index}`)
    .uint(expiresAt, 6)
    // The task's nonce: every task's links are its own, even when the pictures are alike.
    .text(task)
    .bytes();
  return `${origin}/files/${writeToken(bytes)}.${plan.kind === "image" ? "png" : "mp4"}`;
}

/** What a link asks for, or undefined for a made-up one. */
export function readLink(name: string): { spec: MediaSpec; expiresAt: number } | undefined {
  const bytes = readToken(name.replace(/\.(png|mp4)$/, ""));
  if (bytes === undefined) return undefined;
  try {
    const reader = new Unpacker(bytes);
    const kind = reader.uint(1);
    const width = reader.uint(2);
    const height = reader.uint(2);
    const durationSeconds = reader.uint(4) / 100;
    const seed = reader.text();
    const expiresAt = reader.uint(6);
    const spec: MediaSpec =
      kind === 0
        ? { kind: "image", width, height, seed }
        : { kind: "video", width, height, durationSeconds, audio: kind === 2, seed };
    return { spec, expiresAt };
  } catch {
    return undefined;
  }
}

/** Serves a result file: 404 for a made-up link, 403 once it has expired. */
export async function serveFile(
  context: SimContext,
  res: ServerResponse,
  name: string,
): Promise<void> {
  const { options, counters, dice } = context;
  const link = readLink(name);
  if (link === undefined) {
    countError(counters, 404);
    sendError(res, 404, "no such file");
    return;
  }
  if (options.clock.now() >= link.expiresAt) {
    counters.downloads.expired += 1;
    countError(counters, 403);
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
    res.end("link expired: result links last 24 hours after the task completes\n");
    return;
  }
  if (options.faults.downloadDelayMs > 0) await sleep(options.faults.downloadDelayMs);
  const file = await context.media.render(link.spec);
  // A client that gave up while the file was drawn was not served it.
  if (res.destroyed) return;
  const truncate = dice.roll("truncate", name, options.faults.truncateRate);
  res.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes });
  counters.downloads.served += 1;
  if (truncate) {
    // Announce the whole length, send half, then drop the connection.
    counters.downloads.truncated += 1;
    countError(counters, "truncated");
    const half = Math.floor(file.bytes / 2);
    counters.downloads.bytes += half;
    if (file.data !== undefined) {
      res.write(file.data.subarray(0, half), () => res.destroy());
      return;
    }
    void openNamedFile(file.path).then(
      ({ handle }) => {
        const stream = handle.createReadStream({ end: Math.max(0, half - 1) });
        stream.on("end", () => res.destroy());
        // A client that stops reading first closes the file too.
        res.on("close", () => stream.destroy());
        stream.pipe(res, { end: false });
      },
      () => res.destroy(),
    );
    return;
  }
  counters.downloads.bytes += file.bytes;
  if (file.data !== undefined) res.end(file.data);
  else
    void openNamedFile(file.path).then(
      // A client that stops reading (past its size cap) closes the file too.
      ({ handle }) => pipeline(handle.createReadStream(), res, () => {}),
      () => res.destroy(),
    );
}
