import { type ChildProcess, spawn } from "node:child_process";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as wait } from "node:timers/promises";
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";

/**
 * A real S3-compatible server for tests: moto's server mode (`moto_server`, moto 5 with its
 * server extras), started on a free loopback port with a bucket. With `auth`, moto checks
 * signatures against an access key the helper creates through moto's IAM, so a wrong
 * credential is refused as S3 refuses it.
 */

export interface ObjectStore {
  endpoint: string;
  bucket: string;
  /** The environment a gwrun process publishes with (credentials, endpoint, region). */
  env: Record<string, string>;
  /** Every object's key and size under `prefix`. */
  list(prefix?: string): Promise<{ key: string; bytes: number }[]>;
  /** An object's bytes and its user metadata. */
  get(key: string): Promise<{ body: Buffer; metadata: Record<string, string> }>;
  head(key: string): Promise<{ bytes: number; etag: string } | undefined>;
  close(): Promise<void>;
}

const SECRET = "moto-secret-key-for-tests";

export async function startObjectStore(
  options: { bucket?: string; auth?: boolean } = {},
): Promise<ObjectStore> {
  const bucket = options.bucket ?? "gwrun-outputs";
  // Requests before auth starts: the bucket and the IAM user, key and policy.
  const setupRequests = 4;
  const { child, endpoint } = await started(
    options.auth ? { INITIAL_NO_AUTH_ACTION_COUNT: String(setupRequests) } : {},
  );
  try {
    let credentials = { accessKeyId: "AKIAGWRUNTESTS000000", secretAccessKey: SECRET };
    await client(endpoint, credentials).send(new CreateBucketCommand({ Bucket: bucket }));
    if (options.auth) credentials = await iamKey(endpoint);
    const s3 = client(endpoint, credentials);
    const env = {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: "us-east-1",
    };
    return {
      endpoint,
      bucket,
      env,
      async list(prefix = "") {
        const found: { key: string; bytes: number }[] = [];
        let token: string | undefined;
        do {
          const page = await s3.send(
            // Listed whole and chosen here: moto's signature check trips on a prefix's `/`.
            new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
          );
          for (const item of page.Contents ?? [])
            if (item.Key?.startsWith(prefix))
              found.push({ key: item.Key ?? "", bytes: item.Size ?? 0 });
          token = page.NextContinuationToken;
        } while (token !== undefined);
        return found.sort((a, b) => a.key.localeCompare(b.key));
      },
      async get(key) {
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return {
          body: Buffer.from(
            await (
              got.Body as { transformToByteArray(): Promise<Uint8Array> }
            ).transformToByteArray(),
          ),
          metadata: got.Metadata ?? {},
        };
      },
      async head(key) {
        try {
          const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
          return { bytes: head.ContentLength ?? 0, etag: head.ETag ?? "" };
        } catch {
          return undefined;
        }
      },
      async close() {
        s3.destroy();
        await stop(child);
      },
    };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

function client(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): S3Client {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  return new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
}

/** A user with an access key allowed everything, made through moto's IAM API. */
async function iamKey(endpoint: string): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const call = async (params: Record<string, string>) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization:
          "AWS4-HMAC-SHA256 Credential=AKIAGWRUNTESTS000000/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0",
      },
      body: new URLSearchParams({ Version: "2010-05-08", ...params }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`moto IAM ${params.Action}: ${text}`);
    return text;
  };
  await call({ Action: "CreateUser", UserName: "gwrun" });
  const key = await call({ Action: "CreateAccessKey", UserName: "gwrun" });
  await call({
    Action: "PutUserPolicy",
    UserName: "gwrun",
    PolicyName: "all",
    PolicyDocument: JSON.stringify({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }],
    }),
  });
  const id = /<AccessKeyId>(.*?)</.exec(key)?.[1];
  const secret = /<SecretAccessKey>(.*?)</.exec(key)?.[1];
  if (id === undefined || secret === undefined) throw new Error(`no access key in ${key}`);
  return { accessKeyId: id, secretAccessKey: secret };
}

/**
 * moto_server on a free port, answering. A port found free can be taken by another test's
 * server before moto binds it (moto then exits at once): it is started again on another.
 */
async function started(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; endpoint: string }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const child = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let said = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-2000);
    });
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await ready(endpoint, child);
      child.stderr?.removeAllListeners("data").resume();
      return { child, endpoint };
    } catch (error) {
      await stop(child);
      if (child.exitCode === null || attempt === 3)
        throw new Error(`${(error as Error).message}:\n${said}`, { cause: error });
    }
  }
}

async function ready(endpoint: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
    try {
      // moto's own page of its state: another server on the port answers it otherwise.
      const answer = await fetch(`${endpoint}/moto-api/data.json`);
      const text = await answer.text();
      if (answer.ok && typeof JSON.parse(text) === "object") return;
    } catch {
      // Not listening yet.
    }
    await wait(100);
  }
  throw new Error("moto_server did not answer within 30 s");
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await Promise.race([exited, wait(5_000).then(() => child.kill("SIGKILL"))]);
  await exited;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A front to an object store that answers the first `failPuts` uploads (PUT) with a 500. */
export interface FaultyFront {
  endpoint: string;
  /** Uploads answered 500, and requests passed on. */
  failed: number;
  passed: number;
  close(): Promise<void>;
}

export async function startFaultyFront(target: string, failPuts: number): Promise<FaultyFront> {
  const to = new URL(target);
  const front: FaultyFront = { endpoint: "", failed: 0, passed: 0, close: async () => {} };
  const server: Server = createServer((incoming, answer) => {
    if (incoming.method === "PUT" && front.failed < failPuts) {
      front.failed += 1;
      incoming.resume();
      incoming.on("end", () =>
        answer
          .writeHead(500, { "content-type": "application/xml" })
          .end(
            '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>',
          ),
      );
      return;
    }
    front.passed += 1;
    passOn(to, incoming, answer);
  });
  return listening(server, front);
}

/**
 * A front to an object store that passes its first `passFirst` requests on (the check a run
 * makes before it pays), then takes each request and never answers it — a storage that stopped
 * answering — until `pass()`; `stall()` stops it again.
 */
export interface StallingFront {
  endpoint: string;
  /** Requests taken and left unanswered. */
  stalled: number;
  stall(): void;
  pass(): void;
  close(): Promise<void>;
}

export async function startStallingFront(target: string, passFirst = 0): Promise<StallingFront> {
  const to = new URL(target);
  let passed = 0;
  let stalling = false;
  let released = false;
  const front: StallingFront = {
    endpoint: "",
    stalled: 0,
    stall: () => {
      stalling = true;
    },
    pass: () => {
      stalling = false;
      released = true;
    },
    close: async () => {},
  };
  const server: Server = createServer((incoming, answer) => {
    if (stalling || (!released && passed >= passFirst)) {
      front.stalled += 1;
      incoming.resume();
      return;
    }
    passed += 1;
    passOn(to, incoming, answer);
  });
  return listening(server, front);
}

/** Sends `incoming` on to `to` and its reply back. */
function passOn(to: URL, incoming: IncomingMessage, answer: ServerResponse): void {
  const onward = httpRequest(
    {
      host: to.hostname,
      port: to.port,
      method: incoming.method,
      path: incoming.url,
      headers: incoming.headers,
    },
    (reply) => {
      answer.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(answer);
    },
  );
  onward.on("error", () => answer.destroy());
  incoming.pipe(onward);
}

/** `front` once `server` listens on a free loopback port: its endpoint, and how to close it. */
async function listening<T extends { endpoint: string; close(): Promise<void> }>(
  server: Server,
  front: T,
): Promise<T> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  front.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return front;
}

/** An object store that refuses every request with `message` as its error's text. */
export async function startRefusingStore(
  message: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = createServer((incoming, answer) => {
    incoming.resume();
    incoming.on("end", () =>
      answer
        .writeHead(403, { "content-type": "application/xml" })
        .end(
          `<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>${message}</Message></Error>`,
        ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
