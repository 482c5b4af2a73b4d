/**
 * The SQL the store's programs are written in, and what differs between its two databases.
 *
 * A statement is PostgreSQL's SQL with `?` for every parameter (never inside a quoted string),
 * in what both databases read alike: `ON CONFLICT` for upserts, `RETURNING` for a new row's id,
 * `CAST(? AS INTEGER)` where PostgreSQL cannot tell a parameter's type. Where the two differ,
 * the statement is written as a function of a `Dialect`, `(d) => \`… ORDER BY ${d.place}\``,
 * and each executor calls it with its own before it looks the text up among the statements it
 * has prepared: the difference is a typed call where the statement needs it, not a pattern
 * found in its text afterwards. Parts shared by many statements (`queries/run-tasks.ts`) are
 * functions of the dialect too.
 *
 * Two things stay with the executors, as they are the same for every statement:
 * - PostgreSQL numbers each `?` as `$1`, `$2`… (once per text, kept), as a query compiler
 *   numbers its placeholders per dialect; SQLite takes `?` as written.
 * - An array parameter (`anyOf`) is passed as a JavaScript array: PostgreSQL takes it as one
 *   of its arrays, SQLite binds any array value as JSON text, which `json_each` reads. No other
 *   parameter of the store's statements is an array.
 */

/** What differs between the databases, one member per difference. */
export interface Dialect {
  /** A test that `column` is one of the values of the next parameter, an array. */
  anyOf(column: string): string;
  /**
   * A task's place: the order tasks were first recorded in. PostgreSQL keeps it in a column
   * of its own (an identity); in SQLite the rowid is that order, and every index holds it.
   */
  readonly place: string;
  /** What ends a read that locks the rows it found until the transaction ends. */
  lock(mode: "share" | "update"): string;
  /** The text at `key` (a plain name) of `expr`, a column of JSON text. */
  jsonField(expr: string, key: string): string;
  /** `table` read through `index`, where the planner must be told. */
  indexedBy(table: string, index: string): string;
}

/** A statement, or a part of one, written for the database it runs on. */
export type ForDialect = (d: Dialect) => string;

/** A statement as a program writes it: one text for both databases, or one for each. */
export type Statement = string | ForDialect;

/** The text of `statement` in `dialect`. */
export function textIn(statement: Statement, dialect: Dialect): string {
  return typeof statement === "string" ? statement : statement(dialect);
}

export const POSTGRES: Dialect = {
  anyOf: (column) => `${column} = ANY(?)`,
  place: "jobs.place",
  lock: (mode) => (mode === "share" ? "FOR SHARE" : "FOR UPDATE"),
  jsonField: (expr, key) => `CAST(${expr} AS jsonb) ->> '${key}'`,
  // PostgreSQL plans from its statistics: it has no hints.
  indexedBy: (table) => table,
};

export const SQLITE: Dialect = {
  anyOf: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  place: "jobs.rowid",
  // A write transaction holds the whole database: there are no rows to lock.
  lock: () => "",
  // SQLite reads JSON text as it is.
  jsonField: (expr, key) => `${expr} ->> '${key}'`,
  // Without statistics SQLite's planner takes a unique index over a covering one.
  indexedBy: (table, index) => `${table} INDEXED BY ${index}`,
};
