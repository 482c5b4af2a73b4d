import { ErrorCode, GwError } from "../core/errors.js";

/**
 * Each store turns a driver's error code into what the user can do about it; the lookup is
 * one rule, each adapter only its table of codes.
 */

/** A pattern of error codes, what they mean at a place (a file, a redacted URL), and the fix. */
export type UnusableAdvice = readonly [RegExp, (where: string) => string, string][];

/** The error as a `GW_STORE_UNUSABLE` GwError when its code has advice; else undefined. */
export function adviseUnusable(
  advice: UnusableAdvice,
  error: unknown,
  where: () => string,
): GwError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  for (const [pattern, what, hint] of advice) {
    if (pattern.test(code))
      return new GwError(ErrorCode.StoreUnusable, `${what(where())} (${code})`, {
        hint,
        cause: error,
      });
  }
  return undefined;
}
