import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a webhook received. */
export interface WebhookPost {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface Webhook {
  /** The base URL, e.g. http://127.0.0.1:4321 (add a path). */
  url: string;
  posts: WebhookPost[];
  close(): Promise<void>;
}

/**
 * A webhook on loopback: answers each request with the next status of `statuses` (the last
 * one repeats), or never answers when it is "hang".
 */
export async function startWebhook(statuses: readonly number[] | "hang" = [200]): Promise<Webhook> {
  const posts: WebhookPost[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      posts.push({ path: request.url ?? "", headers: request.headers, body, at: Date.now() });
      if (statuses === "hang") return;
      const status = statuses[Math.min(posts.length, statuses.length) - 1] ?? 200;
      response.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
