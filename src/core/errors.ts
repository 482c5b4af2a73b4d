/** Stable error codes; the CLI's top level maps them to exit codes. */
export const ErrorCode = {
  ManifestInvalid: "GW_MANIFEST_INVALID",
  ManifestUnreadable: "GW_MANIFEST_UNREADABLE",
  RequestInvalid: "GW_REQUEST_INVALID",
  Usage: "GW_USAGE",
  Internal: "GW_INTERNAL",
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
