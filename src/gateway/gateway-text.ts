import { secretsOf } from "../core/secret-registry.js";
import { terminalText } from "../core/text-filter.js";

/**
 * Text the gateway wrote (error messages, task failure reasons, bodies it answered with) is
 * data: it passes through here before it is stored or shown, so a hostile or broken gateway
 * cannot flood the database, the log or the terminal, nor drive the terminal.
 */

/** Characters kept of one gateway text: far more than any real message needs. */
export const GATEWAY_TEXT_MAX = 2_000;

/** Credentials a gateway may repeat: a `Bearer` token, an `x-api-key` value. */
const CREDENTIALS = /\b(Bearer\s+|x-api-key["']?\s*[:=]\s*["']?)[^\s"',;)]+/gi;

/** What a secret is replaced with. */
export const MASK = "***";

/**
 * `text` with escape sequences and controls removed, credentials and `secrets` (the
 * configured key) masked, cut to `max` characters.
 */
export function gatewayText(
  text: string,
  max = GATEWAY_TEXT_MAX,
  secrets: readonly string[] = [],
): string {
  const plain = terminalText(text).trim();
  return cut(redacted(plain, secrets), max);
}

/**
 * `text` with credentials masked: `secrets`, every credential of the command's environment
 * (the secret registry), and what looks like one in a URL or header.
 */
export function redacted(text: string, secrets: readonly string[] = []): string {
  const registry = secretsOf();
  for (const secret of secrets) registry.add("given", secret);
  return registry.mask(text).replace(CREDENTIALS, `$1${MASK}`);
}

/** `text` cut to `max` characters, saying how many bytes were cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const rest = Buffer.byteLength(text.slice(max), "utf8");
  return `${text.slice(0, max)}… (${rest} bytes cut)`;
}
