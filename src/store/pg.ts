import type { PgStore } from "./postgres/open.js";

/**
 * Opens the PostgreSQL store (`./postgres/open.ts`). The adapter and `pg` are loaded only
 * here, so a command on the SQLite store never loads them.
 */
export async function openPgStore(
  url: string,
  options: { migrate?: boolean } = {},
): Promise<PgStore> {
  const { openPgStore: open } = await import("./postgres/open.js");
  return open(url, options);
}
