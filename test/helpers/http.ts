import { request } from "node:http";

export interface RawAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A raw request to `url`'s host: the path is sent as written (`..` and all) and any header may
 * be set (`host` too); for an endless answer (server-sent events) `untilHeaders` stops at them.
 */
export function rawRequest(
  url: string,
  pathname: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    untilHeaders?: boolean;
  } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request(
      { hostname, port, path: pathname, method: options.method ?? "GET", headers: options.headers },
      (response) => {
        const answer = { status: response.statusCode ?? 0, body: "", headers: response.headers };
        if (options.untilHeaders === true) {
          response.destroy();
          resolve(answer);
          return;
        }
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          answer.body += chunk;
        });
        response.on("end", () => resolve(answer));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
