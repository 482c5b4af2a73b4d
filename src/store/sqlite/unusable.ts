import { ErrorCode, GwError } from "../../core/errors.js";
import { adviseUnusable, type UnusableAdvice } from "../unusable-advice.js";
import { addonUnloadable } from "./library.js";

/**
 * A state database that cannot be used — a full disk, a read-only or damaged file, a lock held
 * too long — as a located error saying what to do, rather than SQLite's own words.
 */

const ADVICE: UnusableAdvice = [
  [
    // SHMSIZE: the shared-memory file of WAL could not grow, which a full disk causes.
    /^SQLITE_(FULL|IOERR_SHMSIZE)/,
    (file) => `the disk under the state database ${file} is full`,
    "free space there, or put the database elsewhere with --db FILE",
  ],
  [
    /^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/,
    (file) => `the state database ${file} cannot be written (read-only, or not allowed)`,
    "make the file and its folder writable, or use --db FILE elsewhere",
  ],
  [
    /^SQLITE_(CORRUPT|NOTADB)/,
    (file) => `${file} is not a gwrun state database, or it is damaged`,
    "restore it from a backup, or move it aside (the next run starts a new one, and forgets what the old one recorded)",
  ],
  [
    /^SQLITE_(BUSY|LOCKED)/,
    (file) => `the state database ${file} stayed locked by another process`,
    "wait for the other gwrun to finish, or use --db FILE elsewhere",
  ],
  [
    /^SQLITE_IOERR/,
    (file) => `the state database ${file} could not be read or written (an I/O error)`,
    "check the disk, or put the database elsewhere with --db FILE",
  ],
];

/** The error as a `GW_STORE_UNUSABLE` GwError when SQLite raised it about `file`; else undefined. */
export function storeUnusable(error: unknown, file: string): GwError | undefined {
  const addon = addonUnloadable(error);
  if (addon !== undefined) {
    return new GwError(ErrorCode.StoreUnusable, addon.problem, { hint: addon.hint, cause: error });
  }
  return adviseUnusable(ADVICE, error, () => file);
}
