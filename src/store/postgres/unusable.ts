import type { GwError } from "../../core/errors.js";
import { adviseUnusable, type UnusableAdvice } from "../unusable-advice.js";

/**
 * A PostgreSQL store that cannot be used — no server, refused login, no such database, no
 * schema — as a located error saying what to do. The connection string is shown without
 * its password.
 */

/** Parameters of a connection string that carry a secret (`password`, `sslpassword`). */
const SECRET_PARAMETER = /pass/i;

/** The connection string with its password replaced, fit for errors and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const key of [...parsed.searchParams.keys()])
      if (SECRET_PARAMETER.test(key)) parsed.searchParams.set(key, "***");
    return parsed.toString();
  } catch {
    return "the PostgreSQL store (its connection string could not be read)";
  }
}

/** Whether a connection string holds a password (`user:password@`, or a parameter). */
export function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (
      parsed.password !== "" ||
      [...parsed.searchParams.keys()].some((key) => SECRET_PARAMETER.test(key))
    );
  } catch {
    // Unreadable as a URL, but the driver may still read a password in it.
    return /:[^/@]*@/.test(url) || SECRET_PARAMETER.test(url);
  }
}

const ADVICE: UnusableAdvice = [
  [
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ECONNRESET)$/,
    (where) => `no PostgreSQL server answered at ${where}`,
    "start the server, or name another with --store (or GWRUN_STORE)",
  ],
  [
    /^(08\w{3}|57P0[1-3])$/,
    (where) => `the connection to PostgreSQL at ${where} was lost`,
    "check the server; once it is back, `gwrun resume` goes on: what was recorded is kept",
  ],
  [
    /^(28P01|28000)$/,
    (where) => `PostgreSQL refused the login at ${where}`,
    "check the user, and the password: GWRUN_STORE's connection string, PGPASSWORD, or ~/.pgpass (or the file PGPASSFILE names; one others may read is ignored)",
  ],
  [
    /^3F000$/,
    (where) => `no schema named by the search_path of ${where} exists`,
    "correct search_path (the connection string's options, or the role's setting), or create the schema it names",
  ],
  [
    /^3D000$/,
    (where) => `the database named in ${where} does not exist`,
    "create it (createdb), or name another with --store",
  ],
  [
    /^GWRUN_NO_SCHEMA$/,
    (where) => `${where} holds no gwrun schema, or an older one`,
    "set it up with `gwrun store migrate --store URL` (a run does it too)",
  ],
  [
    /^(42501)$/,
    (where) => `the PostgreSQL user may not create or change gwrun's tables at ${where}`,
    "grant it CREATE on the schema, or run `gwrun store migrate` as its owner",
  ],
];

/** The error as a `GW_STORE_UNUSABLE` GwError when it says the store at `url` is unusable. */
export function pgStoreUnusable(error: unknown, url: string): GwError | undefined {
  return adviseUnusable(ADVICE, error, () => redactUrl(url));
}
