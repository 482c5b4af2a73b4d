import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { readOwnFile } from "../../core/file-gate.js";
import { commandIo, resolveFromCwd } from "../../core/io.js";

/**
 * The password file PostgreSQL's own tools read, read the same way: a password stays out of
 * connection strings, so out of command lines and process listings. pg 8 reads it too, but
 * warns on every run that it will stop; gwrun reads it itself.
 *
 * Each line is `host:port:database:user:password`; `*` matches anything, `\:` and `\\` stand
 * for `:` and `\`, a line starting with `#` is a comment, and the first match wins. A file that
 * other users may read, or that is no plain file, is ignored, as libpq ignores it.
 */

/** Where the file is: PGPASSFILE, else `~/.pgpass` (`%APPDATA%\postgresql\pgpass.conf` on Windows). */
export function passwordFile(env: NodeJS.ProcessEnv = commandIo().env): string {
  if (env.PGPASSFILE !== undefined && env.PGPASSFILE !== "") return resolveFromCwd(env.PGPASSFILE);
  return process.platform === "win32"
    ? path.join(env.APPDATA ?? homedir(), "postgresql", "pgpass.conf")
    : path.join(homedir(), ".pgpass");
}

/** The fields of a connection a line is matched against (as pg passes them). */
export interface ConnectionFields {
  host?: string | null;
  port?: number | string | null;
  database?: string | null;
  user?: string | null;
}

/** A password file is a few lines; one larger is not read. */
const PASSWORD_FILE_MAX_BYTES = 1024 * 1024;

/**
 * The password for `connection` when its connection string has none: the command's PGPASSWORD
 * (pg reads only the process's), else the one the file holds; undefined when neither has one.
 */
export async function passwordFromFile(
  connection: ConnectionFields,
  file = passwordFile(),
): Promise<string | undefined> {
  const given = commandIo().env.PGPASSWORD;
  if (given !== undefined && given !== "") return given;
  let text: string;
  try {
    const stats = await stat(file);
    if (!stats.isFile()) return undefined;
    if (process.platform !== "win32" && (stats.mode & 0o077) !== 0) return undefined;
    text = readOwnFile(file, PASSWORD_FILE_MAX_BYTES).toString("utf8");
  } catch {
    return undefined;
  }
  const wanted = [
    connection.host ?? "localhost",
    String(connection.port ?? 5432),
    connection.database ?? "",
    connection.user ?? "",
  ];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("#")) continue;
    const fields = fieldsOf(line);
    if (fields?.slice(0, 4).every((field, at) => field === "*" || field === wanted[at]))
      return fields[4];
  }
  return undefined;
}

/** A line's five fields, unescaped (the password is the rest of the line); undefined if fewer. */
function fieldsOf(line: string): string[] | undefined {
  const fields: string[] = [];
  let field = "";
  for (let at = 0; at < line.length; at++) {
    const char = line[at] as string;
    if (char === "\\" && at + 1 < line.length) {
      at += 1;
      field += line[at];
    } else if (char === ":" && fields.length < 4) {
      fields.push(field);
      field = "";
    } else field += char;
  }
  fields.push(field);
  return fields.length === 5 ? fields : undefined;
}
