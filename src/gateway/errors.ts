import { ErrorCategory, ErrorCode, GwError } from "../core/errors.js";
import { gatewayText, redacted } from "./gateway-text.js";

/** What the gateway (or the network on the way) answered instead of success. */
export class GatewayError extends GwError {
  /** HTTP status, when there was a response. */
  readonly status: number | undefined;
  /** The spec's error `type`, when the body had one. */
  readonly type: string | undefined;
  /** How long the gateway asked us to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The rate the gateway says it allows (a RateLimit-Policy header), per second. */
  readonly rateLimitPerSecond: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      status?: number;
      type?: string;
      retryAfterMs?: number;
      rateLimitPerSecond?: number;
      retryable?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(code, message, {
      category: ErrorCategory.Remote,
      retryable: options.retryable ?? false,
      cause: options.cause,
    });
    this.name = "GatewayError";
    this.status = options.status;
    this.type = options.type;
    this.retryAfterMs = options.retryAfterMs;
    this.rateLimitPerSecond = options.rateLimitPerSecond;
  }
}

const CODES: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.HttpInvalid,
  401: ErrorCode.HttpUnauthorized,
  402: ErrorCode.HttpPaymentRequired,
  404: ErrorCode.HttpNotFound,
  422: ErrorCode.HttpInvalid,
  429: ErrorCode.HttpRateLimited,
};

/** The error for a non-2xx answer: the spec's `{error: {code, message, type}}` when present. */
export function errorFromResponse(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  what: string,
  now: number,
): GatewayError {
  const body = parseErrorBody(text);
  const message = gatewayText(body.message ?? (text.trim().slice(0, 200) || "no message"));
  const code = CODES[status] ?? (status >= 500 ? ErrorCode.HttpServer : ErrorCode.HttpOther);
  return new GatewayError(
    code,
    `${what}: HTTP ${status}${body.type === undefined ? "" : ` ${body.type}`}: ${message}`,
    {
      status,
      type: body.type,
      retryAfterMs: status === 429 ? retryAfterMs(headers, now) : undefined,
      rateLimitPerSecond: rateLimitOf(headers),
      retryable: status === 429 || status >= 500,
    },
  );
}

function parseErrorBody(text: string): { message?: string; type?: string } {
  try {
    const value = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } };
    const error = value?.error;
    return {
      message: typeof error?.message === "string" ? error.message : undefined,
      type: typeof error?.type === "string" ? error.type : undefined,
    };
  } catch {
    return {};
  }
}

/** `retry-after-ms` when given (precise), else `Retry-After` in seconds or as an HTTP date. */
function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  now: number,
): number | undefined {
  const precise = Number(headers["retry-after-ms"]);
  if (Number.isFinite(precise) && precise >= 0) return precise;
  const value = headers["retry-after"];
  if (typeof value !== "string") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The request rate a gateway announces, per second: `RateLimit-Policy: 10;w=1` (the IETF
 * draft's form). Undefined when it announces none.
 */
export function rateLimitOf(
  headers: Record<string, string | string[] | undefined>,
): number | undefined {
  const policy = headers["ratelimit-policy"];
  const match =
    typeof policy === "string" ? /^\s*(\d+(?:\.\d+)?)\s*;\s*w=(\d+(?:\.\d+)?)/.exec(policy) : null;
  if (match === null) return undefined;
  const perSecond = Number(match[1]) / Number(match[2]);
  return Number.isFinite(perSecond) && perSecond > 0 ? perSecond : undefined;
}

/**
 * Connection failures: reset, refused, timed out. All retryable. `shown` cleans the library's
 * words before they are quoted.
 */
export function networkError(
  error: unknown,
  what: string,
  shown: (text: string) => string = (text) => text,
): GatewayError {
  const cause = error as { code?: string; message?: string };
  const reason = cause.code ?? shown(cause.message ?? String(error));
  return new GatewayError(ErrorCode.Network, `${what}: connection failed (${reason})`, {
    retryable: true,
    cause: error,
  });
}

/** `error` with `secret` masked in its message, when it is a gateway error that echoed it. */
export function withSecretMasked(error: unknown, secret: string): unknown {
  if (!(error instanceof GatewayError)) return error;
  const message = redacted(error.message, [secret]);
  if (message === error.message) return error;
  const { code, status, type, retryAfterMs, rateLimitPerSecond, retryable } = error;
  return new GatewayError(code, message, {
    status,
    type,
    retryAfterMs,
    rateLimitPerSecond,
    retryable,
    cause: error.cause,
  });
}
