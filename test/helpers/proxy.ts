import { readFileSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";

/**
 * A forward proxy on loopback, as a company has one: it opens CONNECT tunnels and forwards
 * absolute-URI requests, asks for credentials when it has some, and counts what passes. The
 * tunnels carry plain HTTP here (the simulator's), so each request inside one is read and
 * counted as well.
 */
export interface TestProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string;
  /** The URL with `user:password` in it (the proxy's own credentials), when it has some. */
  urlWithCredentials: string;
  port: number;
  /** Every request that passed, as `METHOD /path`, tunnelled or not. */
  requests: string[];
  /** Tunnels opened (or refused), as `host:port`. */
  tunnels: string[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** `user:password` the proxy asks for (407 without them). */
  credentials?: string;
  /** Answer every CONNECT with this status instead of opening the tunnel (e.g. 502). */
  refuseWith?: number;
  /**
   * Changes a 200 answer's body on its way (a vendor's signature added, a middlebox's edit):
   * the bytes to send instead, or undefined to pass it as it came.
   */
  rewrite?: (path: string, body: Buffer) => Buffer | undefined;
}

/** Headers that concern one connection, never passed on. */
const HOP_BY_HOP = ["proxy-authorization", "proxy-connection", "connection", "keep-alive"];

export async function startProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const requests: string[] = [];
  const tunnels: string[] = [];
  const tunnelTargets = new WeakMap<Socket, string>();
  const expected =
    options.credentials === undefined
      ? undefined
      : `Basic ${Buffer.from(options.credentials).toString("base64")}`;
  const allowed = (req: IncomingMessage) =>
    expected === undefined || req.headers["proxy-authorization"] === expected;

  const forward = (req: IncomingMessage, res: ServerResponse, target: URL) => {
    requests.push(`${req.method} ${target.pathname}${target.search}`);
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = httpRequest(
      target,
      { method: req.method, headers, agent: false },
      (answer) => {
        const { rewrite } = options;
        if (rewrite === undefined || answer.statusCode !== 200) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const parts: Buffer[] = [];
        answer.on("data", (part: Buffer) => parts.push(part));
        answer.on("end", () => {
          const body = Buffer.concat(parts);
          const sent = rewrite(target.pathname, body) ?? body;
          res.writeHead(200, { ...answer.headers, "content-length": sent.length }).end(sent);
        });
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  };

  // Requests read inside a tunnel go to the tunnel's target.
  const inner = createServer((req, res) => {
    const target = tunnelTargets.get(req.socket) ?? "";
    forward(req, res, new URL(req.url ?? "/", `http://${target}`));
  });
  const outer = createServer((req, res) => {
    if (!allowed(req)) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="proxy"' }).end();
      return;
    }
    if (!(req.url ?? "").startsWith("http://")) {
      res.writeHead(400).end("a proxy takes absolute URLs");
      return;
    }
    forward(req, res, new URL(req.url ?? ""));
  });
  outer.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const target = req.url ?? "";
    tunnels.push(target);
    if (!allowed(req)) {
      socket.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n',
      );
      return;
    }
    if (options.refuseWith !== undefined) {
      socket.end(`HTTP/1.1 ${options.refuseWith} Refused\r\n\r\n`);
      return;
    }
    tunnelTargets.set(socket, target);
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) socket.unshift(head);
    inner.emit("connection", socket);
  });
  await listen(outer);
  const { port } = outer.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    urlWithCredentials:
      options.credentials === undefined ? url : `http://${options.credentials}@127.0.0.1:${port}`,
    port,
    requests,
    tunnels,
    async close() {
      inner.closeAllConnections();
      outer.closeAllConnections();
      await new Promise<void>((resolve) => outer.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on: a proxy that is down. */
export async function closedPort(): Promise<number> {
  // Below the ports the system hands out (listen on port 0, outgoing connections): a port
  // taken from there and closed again was sometimes handed to another test's server a moment
  // later, and a run meant to meet a closed proxy talked to that server until it timed out.
  const lowest = lowestEphemeralPort();
  for (let tries = 0; tries < 50; tries += 1) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(1, lowest - 10_000));
    if (await refused(port)) return port;
  }
  throw new Error("no closed port found below the ephemeral range");
}

/** The lowest port the system takes for listen(0) and outgoing connections. */
function lowestEphemeralPort(): number {
  try {
    const range = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
    const low = Number(range.trim().split(/\s+/)[0]);
    if (low > 11_000) return low;
  } catch {
    // Not Linux: the IANA range.
  }
  return 49_152;
}

/** Whether a connection to the port on loopback is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}
