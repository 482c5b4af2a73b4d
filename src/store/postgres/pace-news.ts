import pg from "pg";
import type { PaceState } from "../pace-port.js";

/**
 * News of the pace rows: each 429 a worker records is sent on `PACE_CHANNEL` (NOTIFY, in the
 * statement that records it), and every process of the fleet hears it at once on a connection
 * of its own, instead of at its next turn. A turn it booked before the 429 is then booked
 * again before it is sent, not after: the 429s a fleet meets stay as few as one process's.
 */

export const PACE_CHANNEL = "gwrun_pace";

/** What a NOTIFY on `PACE_CHANNEL` carries: the row's state after the 429. */
export interface PaceNewsPayload extends PaceState {
  account: string;
}

type Listener = (state: PaceState) => void;

/** One LISTEN connection per store, opened while someone watches and closed after the last. */
export class PaceNews {
  readonly #url: string;
  readonly #listeners = new Map<string, Set<Listener>>();
  #client: Promise<pg.Client | undefined> | undefined;

  constructor(url: string) {
    this.#url = url;
  }

  /**
   * Calls `listener` with each 429 recorded for `account` anywhere from when this resolves
   * (the connection listens); resolves to the unwatch.
   */
  async watch(account: string, listener: Listener): Promise<() => void> {
    const listeners = this.#listeners.get(account) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(account, listeners);
    this.#client ??= this.#listen();
    await this.#client;
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(account);
      if (this.#listeners.size === 0) void this.close();
    };
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await (await client)?.end().catch(() => {});
  }

  /** A lost connection is a lost courtesy: turns still come from the row, a little later. */
  async #listen(): Promise<pg.Client | undefined> {
    const client = new pg.Client({ connectionString: this.#url, application_name: "gwrun-pace" });
    client.on("error", () => {});
    client.on("notification", (message) => this.#tell(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${PACE_CHANNEL}`);
      return client;
    } catch {
      await client.end().catch(() => {});
      return undefined;
    }
  }

  #tell(payload: string | undefined): void {
    let news: PaceNewsPayload;
    try {
      news = JSON.parse(payload ?? "") as PaceNewsPayload;
    } catch {
      return;
    }
    const { account, ...state } = news;
    for (const listener of this.#listeners.get(account) ?? []) listener(state);
  }
}
