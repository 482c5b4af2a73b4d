import { POSTGRES, type Statement, textIn } from "../dialect.js";
import type { Executor, Program, Step } from "../program.js";
import { BATCHES } from "./batch.js";
import { type PgDb, retried, type Sql } from "./db.js";
import { lockTasks, move } from "./moves.js";
import { pgStoreUnusable } from "./unusable.js";

/**
 * How PostgreSQL runs a program: each step awaited on the pool (a read, a write of one
 * statement, atomic on its own) or on one connection inside BEGIN … COMMIT, begun at the
 * program's first step and run again from the start when PostgreSQL aborted it to break a
 * deadlock. A failure that says the database is unusable names it, without its password.
 */
export function pgExecutor(db: PgDb, url: string): Executor {
  return {
    async execute(commit, program) {
      try {
        if (commit.mode === "transaction") return await retried(() => inTransaction(db, program()));
        if (commit.mode === "write") return await retried(() => runOn(db.pool, program(), 1));
        return await runOn(db.pool, program(), Infinity);
      } catch (error) {
        throw pgStoreUnusable(error, url) ?? error;
      }
    },
  };
}

/** Runs `program` on `sql` from `next`; a write on the pool makes one statement, not a second. */
async function runOn<T>(
  sql: Sql,
  program: Program<T>,
  most: number,
  next = program.next(),
): Promise<T> {
  for (let made = 0; !next.done; made++) {
    if (made === most) throw new Error("a write of several statements must be a transaction");
    next = program.next(await step(sql, next.value));
  }
  return next.value;
}

/** Begun at the program's first step: one that makes none opens no transaction. */
async function inTransaction<T>(db: PgDb, program: Program<T>): Promise<T> {
  const next = program.next();
  return next.done ? next.value : db.once((client) => runOn(client, program, Infinity, next));
}

/** PostgreSQL's text of each statement of the store's SQL, by its text in the dialect. */
const texts = new Map<string, string>();

/**
 * The text PostgreSQL runs: the statement in its dialect, each `?` numbered `$1`, `$2`… once
 * per text (`../dialect.ts`); a text with none, such as this adapter's own, stays as it is.
 */
function textOf(statement: Statement): string {
  const sql = textIn(statement, POSTGRES);
  let text = texts.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    texts.set(sql, text);
  }
  return text;
}

async function step(sql: Sql, given: Step): Promise<unknown> {
  switch (given.kind) {
    case "rows":
      return (await sql.query(textOf(given.sql), given.params as unknown[])).rows;
    case "changes":
      return (await sql.query(textOf(given.sql), given.params as unknown[])).rowCount ?? 0;
    case "move":
      return move(sql, given.key, given.transition, given.now);
    case "lock":
      return lockTasks(sql, given.keys);
    case "lockName":
      return sql.query("SELECT pg_advisory_xact_lock(hashtextextended('gwrun:' || $1, 0))", [
        given.name,
      ]);
    default:
      return (BATCHES[given.kind] as (sql: Sql, batch: typeof given) => Promise<unknown>)(
        sql,
        given,
      );
  }
}
