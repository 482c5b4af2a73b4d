import path from "node:path";
import {
  type NewTask,
  openPgStore,
  openStore,
  type SqliteStore,
  type Store,
  type TaskEvent,
  type TaskRow,
} from "../../src/store/index.js";
import { tempDir } from "./manifest.js";
import { testDatabase } from "./postgres.js";

/** A fresh state database in a temp folder with one run recorded in it. */
export async function openTestStore(): Promise<{ store: SqliteStore; runId: number }> {
  const store = openStore(path.join(tempDir(), "state.db"));
  const runId = await store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: "/out",
    started_at: 1,
  });
  return { store, runId };
}

/** An image task as a run first records it, under `key`. */
export function imageTask(key: string): NewTask {
  return {
    key,
    jobId: "a",
    label: "a",
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: "{}",
    upstreamKey: null,
    estimatedCost: null,
  };
}

/** Claims one task for submitting, as the engine does; undefined when it is not pending. */
export async function claimOne(
  store: Store,
  task: TaskRow,
  owner: string,
  now: number,
): Promise<{ task: TaskRow; events: TaskEvent[] } | undefined> {
  const { claimed, events } = await store.claimForSubmit([task], owner, now);
  const [first] = claimed;
  return first === undefined ? undefined : { task: first, events };
}

/** The task `key` as the store holds it now. */
export async function taskNow(store: Store, key: string): Promise<TaskRow> {
  const found = await store.task(key);
  if (found === undefined) throw new Error(`no task ${key}`);
  return found;
}

/** Claims and submits `key`: the gateway answered with task id `task-<key>`. */
export async function submitTask(store: Store, key: string, now: number): Promise<TaskRow> {
  const claim = await claimOne(store, await taskNow(store, key), "me", now);
  if (claim === undefined) throw new Error(`could not claim ${key}`);
  await store.recordReceipts(
    [
      {
        task: claim.task,
        taskId: `task-${key}`,
        status: "submitted",
        nextPollAt: now + 1,
        unknownSubmits: 0,
      },
    ],
    now,
  );
  return taskNow(store, key);
}

/** Submits `key` and records it completed with two output links, costing 0.25. */
export async function completeTask(store: Store, key: string, now: number): Promise<TaskRow> {
  const running = await submitTask(store, key, now - 1);
  const links = [
    { url: "https://x.invalid/0.png", expiresAt: null },
    { url: "https://x.invalid/1.png", expiresAt: null },
  ];
  await store.recordPollRound(
    [{ task: running, outcome: { kind: "completed", links, cost: 0.25 } }],
    now,
  );
  return taskNow(store, key);
}

/** Output `idx` of `task` as downloaded to `/out/<idx>.png`. */
export function downloadedFile(task: TaskRow, idx: number) {
  return { task, idx, path: `/out/${idx}.png`, bytes: 3, sha256: "abc", contentType: "image/png" };
}

/** The adapters of the store port, each test of the contract runs against both. */
export const STORE_KINDS = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** A store of either adapter, with raw SQL for tests that set up odd states or look inside. */
export type TestStore = Store & {
  /** Runs SQL both dialects read alike (no parameters); the rows of its last statement. */
  sql(text: string): Promise<Record<string, unknown>[]>;
};

/**
 * A fresh store of `kind` (a PostgreSQL one in its own database) with one run recorded;
 * `another()` opens a second handle on it, as another process would.
 */
export async function openStoreOf(
  kind: StoreKind,
): Promise<{ store: TestStore; runId: number; another(): Promise<Store> }> {
  const location =
    kind === "sqlite" ? path.join(tempDir(), "state.db") : await testDatabase({ schema: true });
  const store = kind === "sqlite" ? sqliteTestStore(location) : await pgTestStore(location);
  const runId = await store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: "/out",
    started_at: 1,
  });
  const another = async () =>
    kind === "sqlite" ? openStore(location) : await openPgStore(location);
  return { store, runId, another };
}

function sqliteTestStore(file: string): TestStore {
  const store = openStore(file);
  return Object.assign(store, {
    sql: async (text: string) => {
      if (text.trim().replace(/;$/, "").includes(";")) {
        store.db.exec(text);
        return [];
      }
      const statement = store.db.prepare(text);
      if (statement.reader) return statement.all() as Record<string, unknown>[];
      statement.run();
      return [];
    },
  });
}

async function pgTestStore(url: string): Promise<TestStore> {
  const store = await openPgStore(url);
  return Object.assign(store, {
    sql: async (text: string) => {
      const result = (await store.pool.query(text)) as unknown as
        | { rows: Record<string, unknown>[] }
        | { rows: Record<string, unknown>[] }[];
      return Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows;
    },
  });
}

/** What `withRun` runs against for `kind`: a PostgreSQL store with the schema, or a SQLite file. */
export async function runStoreOf(kind: StoreKind): Promise<string | undefined> {
  return kind === "postgres" ? await testDatabase({ schema: true }) : undefined;
}
