import { type Command, Option } from "commander";

/** The options every command that opens the store takes, worded once. */

/** `--db FILE`; `note` adds what this command does with it. */
export function dbOption(note = ""): Option {
  return new Option(
    "--db <file>",
    `state database (default: GWRUN_DB, else data/gwrun.db of the project folder)${note}`,
  );
}

/**
 * `--store URL`: a PostgreSQL store, named without its password; `only` for a command that
 * takes no SQLite file (`worker`, `store migrate`).
 */
export function storeOption(only = false): Option {
  return new Option(
    "--store <url>",
    `PostgreSQL store shared by several hosts, a postgres://… connection string without a password (default: GWRUN_STORE, which may hold one)${only ? "" : "; instead of --db"}`,
  );
}

/** Adds `--db` and `--store` to a command that opens the store; `note` as for `dbOption`. */
export function withStoreOptions(command: Command, note = ""): Command {
  return command.addOption(dbOption(note)).addOption(storeOption());
}
