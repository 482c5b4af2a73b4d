import { Option } from "commander";

/** The options every command that opens the store takes, worded once. */

/** `--db FILE`; `note` adds what this command does with it. */
export function dbOption(note = ""): Option {
  return new Option(
    "--db <file>",
    `state database (default: GWRUN_DB, else data/gwrun.db of the project folder)${note}`,
  );
}

/** `--store URL`: a PostgreSQL store, named without its password. */
export function storeOption(): Option {
  return new Option(
    "--store <url>",
    "PostgreSQL store shared by several hosts, a postgres://… connection string without a password (default: GWRUN_STORE, which may hold one); instead of --db",
  );
}
