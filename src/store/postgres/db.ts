import { createHash } from "node:crypto";
import pg from "pg";
import { passwordFromFile } from "./password-file.js";

/**
 * The PostgreSQL handle: one pool of connections that prepare their statements, and
 * transactions. Times are BIGINT ms and counts are BIGINT: read as numbers, as the port uses
 * them (exact up to 2^53).
 */

const INT8 = 20;
const NUMERIC = 1700;

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

const DEADLOCK = "40P01";
const SERIALIZATION = "40001";
/** Tries of a transaction PostgreSQL aborted to break a deadlock. */
const RETRIES = 5;

/** Statement names by text ("" for a batch): each text is hashed once. */
const names = new Map<string, string>();
/** gwrun's texts are a few dozen; past this many, new ones run unprepared. */
const MOST_NAMES = 500;

/**
 * Statements that join a table to an array parameter (`unnest($1)`, a batch) are planned
 * each time they run. A prepared statement gets one plan for all its runs after its first
 * few, made without the array's length and from the table's size at that moment: made while
 * a run's outputs were few, it read the whole table for every batch once they were many.
 */
const PLANNED_EACH_TIME = /\bunnest\(/;

/**
 * A connection that prepares every statement with parameters once, under a name its text
 * decides, and then only binds and runs it. PostgreSQL parsed and planned each statement
 * afresh every time it ran: a quarter of its work on a busy fleet. Statements without
 * parameters (migrations, several statements in one text) go as they are, and batches are
 * planned each time (PLANNED_EACH_TIME).
 */
class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config !== "string" || !Array.isArray(values) || values.length === 0)
      return super.query(config, values, callback);
    let name = names.get(config);
    if (name === undefined) {
      if (names.size >= MOST_NAMES) return super.query(config, values, callback);
      // Decided once per text; "" for a batch, planned each time.
      name = PLANNED_EACH_TIME.test(config)
        ? ""
        : `gwrun_${createHash("sha1").update(config).digest("hex").slice(0, 20)}`;
      names.set(config, name);
    }
    if (name === "") return super.query(config, values, callback);
    return super.query({ name, text: config, values }, callback);
  }
}

/**
 * A pool with pg's own types and statements, for graphile-worker's queries, which expect
 * them; the password found as the store's own is.
 */
export function plainPool(url: string, max: number): pg.Pool {
  (pg.defaults as { password?: unknown }).password = passwordFromFile;
  const pool = new pg.Pool({ connectionString: url, max, allowExitOnIdle: true });
  // As the store's pool: a dropped connection fails the query on it, not the process.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/** Something that runs SQL: the pool, or the client of an open transaction. */
export type Sql = pg.Pool | pg.PoolClient;

export class PgDb {
  readonly pool: pg.Pool;

  constructor(url: string, max = 8) {
    // A connection given no password by its connection string or PGPASSWORD asks the password
    // file: set as pg's default, so every connection of the process does (graphile-worker's too).
    (pg.defaults as { password?: unknown }).password = passwordFromFile;
    this.pool = new pg.Pool({
      connectionString: url,
      max,
      types,
      allowExitOnIdle: true,
      Client: PreparingClient,
    });
    // An idle connection the server dropped must not crash the process: the next query
    // takes another one, or fails where it is awaited.
    this.pool.on("error", () => {});
    // Likewise a checked-out connection that drops: the query on it fails where it is awaited.
    this.pool.on("connect", (client) => client.on("error", () => {}));
  }

  /**
   * Runs `fn` in one transaction on one connection: committed if it returns, else rolled back.
   * Two processes moving the same tasks in different orders can deadlock; PostgreSQL then
   * aborts one of them, which is run again from the start (`fn` keeps its results inside).
   */
  transaction<T>(fn: (sql: pg.PoolClient) => Promise<T>): Promise<T> {
    return retried(() => this.once(fn));
  }

  /** Runs `fn` in one transaction, once. */
  async once<T>(fn: (sql: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Tries `attempt` again while PostgreSQL aborts it to break a deadlock. */
export async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (!(code === DEADLOCK || code === SERIALIZATION) || tries >= RETRIES) throw error;
    }
  }
}

/** The first row of one statement, if any. */
export async function row<T>(
  sql: Sql,
  text: string,
  values: unknown[] = [],
): Promise<T | undefined> {
  return (await sql.query(text, values)).rows[0] as T | undefined;
}
