/**
 * The SQL the store's programs are written in: PostgreSQL's, with `?` for every parameter
 * (never inside a quoted string), in what both databases read alike: `ON CONFLICT` for
 * upserts, `RETURNING` for a new row's id, `CAST(? AS INTEGER)` where PostgreSQL cannot tell a
 * parameter's type. Each executor turns a text into its own once and keeps it:
 *
 * | written                 | PostgreSQL | SQLite                                           |
 * | ----------------------- | ---------- | ------------------------------------------------ |
 * | `?`                     | `$1`, `$2` | `?`                                              |
 * | `x = ANY(?)`, an array  | as is      | `x IN (SELECT value FROM json_each(?))`, as JSON |
 * | `jobs.place`            | as is      | `jobs.rowid`: the same order, where recorded     |
 * | `FOR SHARE`, `FOR UPDATE` | as is    | dropped: a write transaction locks the database  |
 * | `CAST(x AS jsonb) ->> 'k'` | as is   | `x ->> 'k'`: SQLite reads JSON text as it is     |
 * | `t INDEXED BY i`        | `t`        | as is: without statistics SQLite's planner takes |
 * |                         |            | a unique index over a covering one               |
 */

/** The text PostgreSQL runs: `?` numbered `$1`, `$2`…; a text with none stays as it is. */
export function postgresText(sql: string): string {
  let n = 0;
  return sql.replace(/\s+INDEXED BY \w+/g, "").replace(/\?/g, () => `$${++n}`);
}

/** The text SQLite runs, and the positions of the parameters it takes as JSON arrays. */
export function sqliteText(sql: string): { text: string; lists: number[] } {
  const lists: number[] = [];
  let n = 0;
  const text = sql
    .replace(/\s*=\s*ANY\(\?\)|\?/g, (found) => {
      if (found !== "?") lists.push(n);
      n += 1;
      return found === "?" ? "?" : " IN (SELECT value FROM json_each(?))";
    })
    .replace(/\bjobs\.place\b/g, "jobs.rowid")
    .replace(/\s+FOR (SHARE|UPDATE)\b/g, "")
    .replace(/CAST\(([\w.]+) AS jsonb\)/g, "$1");
  return { text, lists };
}
