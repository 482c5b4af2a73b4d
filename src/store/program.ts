import type { Statement } from "./dialect.js";
import type { Store } from "./port.js";
import type { NewTask, OutputCopy } from "./rows.js";
import type { DownloadedFile, OutputLink } from "./transition-inputs.js";
import type { Transition } from "./transition-patches.js";

/**
 * A store operation written once for both adapters: a generator that yields the steps it
 * needs and is handed each one's result. SQLite runs it synchronously, inside one
 * better-sqlite3 transaction (which must never stay open across an await); PostgreSQL awaits
 * each step, inside BEGIN … COMMIT when the operation is a transaction.
 *
 * Statements are written once, in the SQL both databases read, and where the two differ as
 * functions of the executor's dialect (`./dialect.ts`); what each database does its own way is
 * a step of its own: a guarded move, locks, and the batches a busy run makes for every task (a
 * row loop in SQLite, one set statement in PostgreSQL).
 */
export type Program<T> = Generator<Step, T, unknown>;

export type Step =
  | { kind: "rows"; sql: Statement; params: readonly unknown[] }
  | { kind: "changes"; sql: Statement; params: readonly unknown[] }
  /** A guarded move, logged: whether it took. */
  | { kind: "move"; key: string; transition: Transition; now: number }
  /** Row locks on these tasks, in key order, for the rest of the transaction. */
  | { kind: "lock"; keys: readonly string[] }
  /** A lock on a name (a manifest's) for the rest of the transaction. */
  | { kind: "lockName"; name: string }
  | Batch;

/** A task's move, among many. */
export interface Moving {
  key: string;
  transition: Transition;
}

/** An output's check as its row keeps it. */
export interface KeptCheck {
  key: string;
  idx: number;
  checkState: "ok" | "failed";
  checks: string;
  thumbnail: string | null;
  poster: string | null;
}

/** A running task's progress and next poll. */
export interface ProgressNote {
  key: string;
  progress: number;
  polls: number;
  nextPollAt: number;
}

/** The batches: what each is given, and gives back. */
export interface Batches {
  /** Guarded moves: the keys of the tasks moved. */
  moves(given: { moves: readonly Moving[]; now: number }): Set<string>;
  /** New keys inserted pending, known ones joining the run: the keys that were new. */
  insertTasks(given: { runId: number; tasks: readonly NewTask[]; now: number }): Set<string>;
  /** Progress of tasks still running: the keys noted. */
  notes(given: { notes: readonly ProgressNote[] }): Set<string>;
  /** Output links of completed tasks (kept when already recorded). */
  insertOutputs(given: { outputs: readonly { key: string; links: readonly OutputLink[] }[] }): void;
  /**
   * Pending outputs marked downloaded (`marked`, per file), and `move` made on each task whose
   * every output is then downloaded (`moved`).
   */
  markDownloads(given: { files: readonly DownloadedFile[]; move: Transition; now: number }): {
    marked: boolean[];
    moved: Set<string>;
  };
  /** Checks kept, and `move` made on the tasks that passed: the keys moved. */
  keepChecks(given: {
    kept: readonly KeptCheck[];
    passed: readonly string[];
    move: Transition;
    now: number;
  }): Set<string>;
  /** Copies of outputs recorded, replacing an earlier copy in the same folder. */
  copies(given: { copies: readonly OutputCopy[] }): void;
  /** A task's output links replaced, by index. */
  links(given: { key: string; links: readonly OutputLink[] }): void;
}

export type BatchKind = keyof Batches;
export type BatchOf<K extends BatchKind> = { kind: K } & Parameters<Batches[K]>[0];
export type Batch = { [K in BatchKind]: BatchOf<K> }[BatchKind];
export type BatchResult<K extends BatchKind> = ReturnType<Batches[K]>;

/** The rows a statement gives. */
export function* rows<R>(sql: Statement, params: readonly unknown[] = []): Program<R[]> {
  return (yield { kind: "rows", sql, params }) as R[];
}

/** The first row a statement gives, if any. */
export function* first<R>(sql: Statement, params: readonly unknown[] = []): Program<R | undefined> {
  return (yield* rows<R>(sql, params))[0];
}

/** How many rows a statement changed. */
export function* changes(sql: Statement, params: readonly unknown[] = []): Program<number> {
  return (yield { kind: "changes", sql, params }) as number;
}

export function* move(key: string, transition: Transition, now: number): Program<boolean> {
  return (yield { kind: "move", key, transition, now }) as boolean;
}

export function* lock(keys: readonly string[]): Program<void> {
  yield { kind: "lock", keys };
}

export function* lockName(name: string): Program<void> {
  yield { kind: "lockName", name };
}

export function* batch<K extends BatchKind>(
  kind: K,
  given: Parameters<Batches[K]>[0],
): Program<BatchResult<K>> {
  return (yield { kind, ...given } as Batch) as BatchResult<K>;
}

/**
 * How an operation commits. `read`: no transaction. `write`: PostgreSQL makes it in one
 * statement, atomic on its own (SQLite in one transaction). `transaction`: several statements
 * in one transaction on both. `perTask`: a transition a run makes for every task, which SQLite
 * commits together with the others of the same turn (`./sqlite/group-commit.ts`).
 */
export interface Operation<A extends unknown[], T> {
  mode: "read" | "write" | "transaction";
  perTask: boolean;
  program: (...args: A) => Program<T>;
}

export type Commit = Pick<Operation<[], unknown>, "mode" | "perTask">;

const operation =
  (mode: Operation<[], unknown>["mode"]) =>
  <A extends unknown[], T>(program: (...args: A) => Program<T>): Operation<A, T> => ({
    mode,
    perTask: false,
    program,
  });

export const read = operation("read");
export const write = operation("write");
export const transaction = operation("transaction");

export function perTask<A extends unknown[], T>(given: Operation<A, T>): Operation<A, T> {
  return { ...given, perTask: true };
}

/** The parameters of the port's method `K`: an operation takes them as the port states them. */
export type ArgsOf<K extends keyof Store> = Parameters<Store[K]>;

/** Runs programs on one database: an adapter. */
export interface Executor {
  execute<T>(commit: Commit, program: () => Program<T>): Promise<T>;
}

type Operations = Record<string, Operation<never, unknown>>;

/** The operations as methods of a store port, run by `executor`. */
export type Bound<O extends Operations> = {
  [K in keyof O]: O[K] extends Operation<infer A, infer T> ? (...args: A) => Promise<T> : never;
};

export function bind<O extends Operations>(executor: Executor, operations: O): Bound<O> {
  const bound: Record<string, unknown> = {};
  for (const [name, given] of Object.entries(operations)) {
    const { program } = given as unknown as Operation<unknown[], unknown>;
    bound[name] = (...args: unknown[]) => executor.execute(given, () => program(...args));
  }
  return bound as Bound<O>;
}
