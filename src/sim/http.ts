import type { IncomingMessage, ServerResponse } from "node:http";

/** The spec's error types by HTTP status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "payment_required",
  404: "not_found_error",
  413: "invalid_request_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
  500: "server_error",
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The spec's error body: `{error: {code, message, type}}`, `code` equal to the HTTP status. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const type = ERROR_TYPES[status] ?? "server_error";
  sendJson(res, status, { error: { code: status, message, type } }, headers);
}

export class BodyTooLarge extends Error {}

/** The request body, refused beyond `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge(`request body over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
