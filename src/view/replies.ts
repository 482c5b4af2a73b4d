import type { IncomingMessage, ServerResponse } from "node:http";
import { contentPolicy } from "./headers.js";

/** The viewer's answers: short text, JSON or a page, and the refusals a request may get. */

/** A refusal with its status, answered as short text. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Largest review request body, bytes. */
const MAX_BODY = 64 * 1024;

/** Sends `body`, never cached or sniffed, under a policy that allows this origin only. */
export function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": contentPolicy(
      "default-src 'self'; img-src 'self'; media-src 'self'; style-src 'self'; script-src 'self'",
    ),
  });
  response.end(body);
}

export function json(response: ServerResponse, value: unknown): void {
  send(response, 200, "application/json; charset=utf-8", JSON.stringify(value));
}

export function html(response: ServerResponse, text: string): void {
  send(response, 200, "text/html; charset=utf-8", text);
}

/** A small JSON object from a request body; 400 for anything else. */
export async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
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
