import pg from "pg";
import type { LeaderLock } from "../fleet-port.js";
import { read, rows } from "../program.js";
import { QUEUES } from "./queues.js";

/**
 * The poll leader: one process per gateway account polls for the whole fleet, so batch calls
 * stay full. Leadership is a session advisory lock on a connection of its own: PostgreSQL
 * frees it the moment that connection dies, and a standby asking every second takes over.
 */

/** The application name a leader's connection carries, so `status` can name it. */
export const LEADER_PREFIX = "gwrun-leader:";

export class PgLeaderLock implements LeaderLock {
  readonly #url: string;
  readonly #account: string;
  readonly #workerId: string;
  #client: pg.Client | undefined;
  #leading = false;

  constructor(url: string, account: string, workerId: string) {
    this.#url = url;
    this.#account = account;
    this.#workerId = workerId;
  }

  get leading(): boolean {
    return this.#leading;
  }

  /** Leads if no other process does; true while this process leads. */
  async tryLead(): Promise<boolean> {
    if (this.#leading) return true;
    try {
      if (this.#client === undefined) {
        const client = new pg.Client({
          connectionString: this.#url,
          application_name: `${LEADER_PREFIX}${this.#workerId}`.slice(0, 63),
        });
        // A lost connection loses the lock: lead again only after asking again.
        client.on("error", () => this.#drop());
        client.on("end", () => this.#drop());
        this.#client = client;
        await client.connect();
      }
      const got = await this.#client.query<{ got: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext($1)) AS got",
        [`gwrun:poll:${this.#account}`],
      );
      this.#leading = got.rows[0]?.got === true;
    } catch {
      this.#drop();
    }
    return this.#leading;
  }

  /** Gives the lead up (its connection closes, so the lock goes with it). */
  async release(): Promise<void> {
    const client = this.#client;
    this.#drop();
    await client?.end().catch(() => {});
  }

  #drop(): void {
    this.#leading = false;
    this.#client = undefined;
  }
}

export const fleetLeaders = {
  /**
   * Which worker leads polls for each account, as PostgreSQL's lock table says: of this
   * database only, as the server's lock table holds every database's.
   */
  pollLeaders: read(function* () {
    const found = yield* rows<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE $1
         AND a.datname = current_database()`,
      [`${LEADER_PREFIX}%`],
    );
    return found.map((leader) => leader.name.slice(LEADER_PREFIX.length));
  }),
  /** The fleet's queue: submit and download jobs waiting and running; links about to expire. */
  queueDepth: read(function* (expiringWithinMs: number) {
    const [depth] = yield* rows<{ submits: number; downloads: number; running: number }>(
      `SELECT count(*) FILTER (WHERE task_identifier LIKE 'gwrun_submit%') AS submits,
              count(*) FILTER (WHERE task_identifier LIKE 'gwrun_download%') AS downloads,
              count(*) FILTER (WHERE locked_at IS NOT NULL) AS running
       FROM (SELECT task_identifier, locked_at FROM ${QUEUES.submit}.jobs
             UNION ALL SELECT task_identifier, locked_at FROM ${QUEUES.download}.jobs) q`,
    );
    const [expiring] = yield* rows<{ n: number }>(
      `SELECT count(DISTINCT o.job_key) AS n FROM outputs o JOIN jobs j ON j.key = o.job_key
       WHERE j.state = 'completed' AND o.state = 'pending'
         AND o.expires_at < EXTRACT(EPOCH FROM gwrun_now()) * 1000 + $1`,
      [expiringWithinMs],
    );
    return {
      submits: depth?.submits ?? 0,
      downloads: depth?.downloads ?? 0,
      running: depth?.running ?? 0,
      expiringLinks: expiring?.n ?? 0,
    };
  }),
};
