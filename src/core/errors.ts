/** Stable error codes; the CLI's top level maps them to exit codes. */
export const ErrorCode = {
  ManifestInvalid: "GW_MANIFEST_INVALID",
  ManifestUnreadable: "GW_MANIFEST_UNREADABLE",
  RequestInvalid: "GW_REQUEST_INVALID",
  Usage: "GW_USAGE",
  Internal: "GW_INTERNAL",
  /** The state database cannot be used: full disk, read-only, damaged, locked too long. */
  StoreUnusable: "GW_STORE_UNUSABLE",
  /** The gateway refused the request: invalid parameters (400) or constraints (422). */
  HttpInvalid: "GW_HTTP_400",
  HttpUnauthorized: "GW_HTTP_401",
  HttpPaymentRequired: "GW_HTTP_402",
  HttpNotFound: "GW_HTTP_404",
  HttpRateLimited: "GW_HTTP_429",
  HttpServer: "GW_HTTP_5XX",
  /** Any other unexpected HTTP status. */
  HttpOther: "GW_HTTP_OTHER",
  /** The connection failed, was reset or timed out. */
  Network: "GW_NETWORK",
  /** A proxy could not be reached or refused the connection: nothing reached the gateway. */
  Proxy: "GW_PROXY",
  /** A response whose body is not what the spec says. */
  BadResponse: "GW_BAD_RESPONSE",
  /** The gateway says the task does not exist or has expired. */
  TaskUnknown: "GW_TASK_UNKNOWN",
  /** A result link no longer works (past its 24 hours). */
  LinkExpired: "GW_LINK_EXPIRED",
  /** A download that is cut short, too large or of the wrong type. */
  DownloadInvalid: "GW_DOWNLOAD_INVALID",
  /** A file could not be written here: full disk, read-only or unwritable folder, I/O error. */
  LocalWrite: "GW_LOCAL_WRITE",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ErrorCategory = {
  /** The user can fix it; carries a hint. */
  User: "user",
  /** The gateway or network failed; may be retryable. */
  Remote: "remote",
  /** A bug in gwrun. */
  Internal: "internal",
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

export interface GwErrorOptions {
  category?: ErrorCategory;
  hint?: string;
  retryable?: boolean;
  cause?: unknown;
}

/** The one error class of gwrun: a stable code, a category and an optional hint. */
export class GwError extends Error {
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly hint: string | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: GwErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GwError";
    this.code = code;
    this.category = options.category ?? ErrorCategory.User;
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
  }
}

/** System error codes of a local write that no retry fixes: the machine must change. */
const LOCAL_WRITE_CODES = new Set(["ENOSPC", "EDQUOT", "EACCES", "EPERM", "EROFS", "EIO"]);

/**
 * A failed local write as an error that says which file and what to do; undefined when
 * `error` is not one (a network error, say).
 */
export function localWriteError(error: unknown, file: string): GwError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !LOCAL_WRITE_CODES.has(code)) return undefined;
  const what =
    code === "ENOSPC" || code === "EDQUOT"
      ? "the disk is full"
      : code === "EIO"
        ? "the disk reported an I/O error"
        : "the folder cannot be written";
  return new GwError(ErrorCode.LocalWrite, `cannot write ${file}: ${what} (${code})`, {
    hint: "free space or fix the folder's permissions (or choose another output.dir), then run again: completed tasks are downloaded without paying again",
    cause: error,
  });
}

/** Any thrown value as an Error (a signal's reason or a library may throw something else). */
export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === "string") return new Error(value);
  try {
    return new Error(JSON.stringify(value) ?? String(value));
  } catch {
    return new Error(String(value));
  }
}
