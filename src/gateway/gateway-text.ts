/**
 * Text the gateway wrote (error messages, task failure reasons, bodies it answered with) is
 * data: it passes through here before it is stored or shown, so a hostile or broken gateway
 * cannot flood the database, the log or the terminal, nor drive the terminal.
 */

/** Characters kept of one gateway text: far more than any real message needs. */
export const GATEWAY_TEXT_MAX = 2_000;

/**
 * Terminal escape sequences (7-bit and C1 forms): OSC and other string commands up to their
 * terminator (BEL or ST) or the end, CSI with its parameters, and two-character escapes.
 */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
  /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;

/** Line breaks and tabs become spaces: one text stays one line of a log. */
const BREAKS = /[\t\n\v\f\r\u2028\u2029]+/g;

/** Other controls, and the bidirectional overrides that make text read other than it is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

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
  const plain = text.replace(ESCAPES, "").replace(BREAKS, " ").replace(CONTROLS, "").trim();
  return cut(redacted(plain, secrets), max);
}

/** `text` with credentials and `secrets` masked (keys too short to be keys are left alone). */
export function redacted(text: string, secrets: readonly string[] = []): string {
  let masked = text;
  for (const secret of secrets) if (secret.length >= 8) masked = masked.split(secret).join(MASK);
  return masked.replace(CREDENTIALS, `$1${MASK}`);
}

/** `text` cut to `max` characters, saying how many bytes were cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const rest = Buffer.byteLength(text.slice(max), "utf8");
  return `${text.slice(0, max)}… (${rest} bytes cut)`;
}
