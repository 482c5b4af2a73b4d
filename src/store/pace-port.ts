/**
 * The gateway pace row as a fleet takes its turns from it (`FleetStore.pace`): its operations
 * and what they say. PostgreSQL's is `./postgres/pace.ts`.
 */

/** What the row says after an operation. */
export interface PaceState {
  /** Submits per second now. */
  rate: number;
  /** Bumped by each cut; a 429 halves the rate only if its turn was given at the current epoch. */
  epoch: number;
  /** How long the row stays paused (Retry-After) from the database's now, ms; 0 when not. */
  pausedMs: number;
  /** Whether the gateway's limit counts task queries: then each takes a turn. */
  queriesCount: boolean;
}

/** Submits that went through since the last report, and the limit the gateway announced. */
export interface Successes {
  count: number;
  announced: number | undefined;
}

/** Reserved turns: the first at `slotAt`, the others `spacingMs` after one another. */
export interface PaceTurn extends PaceState {
  /** When the first turn is, in database time (ms since the Unix epoch). */
  slotAt: number;
  /** How long to wait for it from the database's now, ms. */
  waitMs: number;
  /** How many turns were reserved: at least one, and fewer than asked for when a slow first
   * second ends among them. */
  turns: number;
  /** How far apart they are, ms. */
  spacingMs: number;
}

/** The row operations a fleet pace needs: the port `src/fleet/pace.ts` is built on. */
export interface PaceRow {
  /** How far under an announced limit the row settles (a fraction of it). */
  readonly underLimit: number;
  /** Creates the row for `account` or sets its ceiling; a learned rate above it is cut to it. */
  open(account: string, ceiling: number): Promise<PaceState>;
  /**
   * Takes the next `turns` turns (one unless told), the first at GREATEST(next_at, now,
   * paused_until), and moves next_at on by 1/rate for each (1.5/rate in the first second
   * after the pace was idle for a second); records the successes it carries, as `succeed`
   * does.
   */
  reserve(account: string, succeeded?: Successes, turns?: number): Promise<PaceTurn>;
  /** `count` submits went through; `announced` is the gateway's stated limit per second. */
  succeed(account: string, count: number, announced?: number): Promise<PaceState>;
  /**
   * A 429 to a submit whose turn was given at `epoch`, or (`query`) to a task query. It teaches
   * the row that queries count when it came to a query, or to a submit sent under a limit the
   * gateway announced or 429s told while queries went.
   */
  limit(
    account: string,
    epoch: number,
    retryAfterMs: number | undefined,
    announced?: number,
    query?: boolean,
  ): Promise<PaceState>;
  /** `count` task queries went out without a turn: calls the gateway let through. */
  queried(account: string, count: number): Promise<PaceState>;
  /**
   * Calls `heard` with the row's state after each 429 any process records from when this
   * resolves; resolves to the unwatch.
   */
  watch(account: string, heard: (state: PaceState) => void): Promise<() => void>;
}
