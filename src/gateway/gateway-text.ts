/**
 * Text the gateway wrote (error messages, task failure reasons, bodies it answered with) is
 * data: it passes through here before it is stored or shown, so a hostile or broken gateway
 * cannot flood the database, the log or the terminal.
 */

/** Characters kept of one gateway text: far more than any real message needs. */
export const GATEWAY_TEXT_MAX = 2_000;

/** `text` cut to `max` characters, saying how many bytes were cut. */
export function gatewayText(text: string, max = GATEWAY_TEXT_MAX): string {
  if (text.length <= max) return text;
  const cut = Buffer.byteLength(text.slice(max), "utf8");
  return `${text.slice(0, max)}… (${cut} bytes cut)`;
}
