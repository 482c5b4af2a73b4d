import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What the server answers at a path: a body (status 200 by default), a redirect, or nothing. */
export type SheetAnswer =
  | { body: string | Buffer; status?: number; type?: string; chunked?: boolean }
  | { redirect: string; status?: number }
  | { hang: true };

export interface SheetServer {
  /** `http://127.0.0.1:<port>` (add a path). */
  url: string;
  /** What each path answers; change it to change the sheet. */
  routes: Map<string, SheetAnswer>;
  /** Every request, as `METHOD /path?query`. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A web server on loopback publishing sheets, as a spreadsheet published as CSV is served:
 * each path's answer is in `routes` (404 elsewhere), with its Content-Type and length, or
 * chunked without a length.
 */
export async function startSheetServer(
  routes: Record<string, SheetAnswer> = {},
): Promise<SheetServer> {
  const table = new Map(Object.entries(routes));
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const answer = table.get((request.url ?? "").split("?")[0] ?? "");
    if (answer === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if ("hang" in answer) return;
    if ("redirect" in answer) {
      response.writeHead(answer.status ?? 302, { location: answer.redirect }).end();
      return;
    }
    const body = Buffer.from(answer.body);
    const headers: Record<string, string> = { "content-type": answer.type ?? "text/plain" };
    if (answer.chunked !== true) headers["content-length"] = String(body.length);
    response.writeHead(answer.status ?? 200, headers);
    if (answer.chunked === true) {
      // Several writes without a length: the reader learns the size only as it reads.
      for (let at = 0; at < body.length; at += 64 * 1024)
        response.write(body.subarray(at, at + 64 * 1024));
      response.end();
    } else response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes: table,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
