import { vi } from "vitest";

/**
 * Waits for what a test watches from outside (a file, a database, a page, another process) to
 * come about: `check` is asked again every `everyMs` until it gives something other than
 * undefined or false, which is returned. After `timeoutMs` it fails, naming `what`.
 */
export function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 30_000, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  return vi.waitFor(
    async () => {
      const found = await check();
      if (found === undefined || found === false) throw new Error(`still waiting for ${what}`);
      return found;
    },
    { timeout: timeoutMs, interval: everyMs },
  );
}

/** Statements of this database waiting for a lock now. */
export async function lockWaiters(sql: {
  query(text: string): Promise<{ rows: { n: number }[] }>;
}): Promise<number> {
  const waiting = await sql.query(
    `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE NOT l.granted AND a.datname = current_database()`,
  );
  return waiting.rows[0]?.n ?? 0;
}
