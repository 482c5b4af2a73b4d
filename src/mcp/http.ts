import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { McpOptions } from "./context.js";
import { gwrunServer } from "./server.js";

/**
 * `gwrun mcp --http PORT`: the same tools over Streamable HTTP, on loopback only, each request
 * carrying the token printed at the start (`Authorization: Bearer …`) and naming this host;
 * stateless, so a client may reconnect at will.
 */

export interface HttpServing {
  url: string;
  token: string;
  /** Stops listening (runs go on in their own processes). */
  close(): Promise<void>;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export async function serveHttp(
  options: McpOptions,
  port: number,
  token?: string,
): Promise<HttpServing> {
  const secret = token ?? randomBytes(24).toString("base64url");
  const expected = digest(`Bearer ${secret}`);
  const hosts = new Set<string>();
  const allowed = (request: IncomingMessage) =>
    timingSafeEqual(digest(request.headers.authorization ?? ""), expected) &&
    hosts.has(request.headers.host ?? "");
  const http = createServer((request, response) => {
    if (!allowed(request)) {
      response.writeHead(401, { "www-authenticate": "Bearer" }).end("a token is needed\n");
      return;
    }
    const server = gwrunServer(options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch((error: unknown) => {
        options.log.write(`gwrun mcp: ${String(error)}\n`);
        if (!response.headersSent) response.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  for (const name of ["127.0.0.1", "localhost"]) hosts.add(`${name}:${bound}`);
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    token: secret,
    async close() {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
    },
  };
}
