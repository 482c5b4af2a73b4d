import { commandIo } from "./io.js";

/**
 * The secret registry: every credential the environment holds, known by its name and found by
 * its value. A variable is a credential when its name says so (a key, secret, token, password,
 * personal access token, webhook, credentials, auth) or its value is a URL with a password in
 * it (`DATABASE_URL`, `GWRUN_STORE`); gwrun's own key (GW_API_KEY, or the manifest's) is one
 * too. Its value is refused wherever gwrun would write or send it (a request, a label, a file
 * or object name, the record), and masked in every message that could carry it.
 */

/** A credential: the name it is known by (never shown with its value) and the value. */
export interface Credential {
  name: string;
  value: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Words of a variable's name that mark its value as a credential (`PWD` is a folder, not one). */
const CREDENTIAL_WORDS = new Set([
  "KEY",
  "KEYS",
  "APIKEY",
  "SECRET",
  "SECRETS",
  "TOKEN",
  "TOKENS",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PAT",
  "WEBHOOK",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
]);

/** Word endings that mark one glued to another (`APIKEY`, `ACCESSTOKEN`, `PGPASSWORD`). */
const CREDENTIAL_ENDINGS = /(APIKEY|ACCESSKEY|PRIVATEKEY|SECRET|TOKEN|PASSWORD|PASSWD|WEBHOOK)$/;

/** Values shorter than this are not looked for: they are in ordinary text by chance. */
export const CREDENTIAL_MIN_LENGTH = 4;

/** Below this length a value is found only as a whole word, not inside another. */
const WHOLE_WORD_BELOW = 8;

/** Whether a variable's name marks its value as a credential. */
export function isCredentialName(name: string): boolean {
  const words = name.toUpperCase().split(/[^A-Z0-9]+/);
  return words.some((word) => CREDENTIAL_WORDS.has(word) || CREDENTIAL_ENDINGS.test(word));
}

/** The password of a URL with one in it (`postgres://user:pw@host/db`); else undefined. */
export function urlPassword(value: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]+)@/i.exec(value);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1];
  }
}

export class SecretRegistry {
  readonly #credentials: Credential[] = [];

  /** Every credential of `env` (see above), and `extra` ones (a key from elsewhere). */
  constructor(env: Env, extra: readonly Credential[] = []) {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      const password = urlPassword(value);
      if (password !== undefined) {
        this.add(name, password);
        this.add(name, value);
      } else if (isCredentialName(name)) this.add(name, value);
    }
    for (const credential of extra) this.add(credential.name, credential.value);
  }

  /** Knows one more credential (a key written in a manifest). */
  add(name: string, value: string): void {
    if (value.trim().length < CREDENTIAL_MIN_LENGTH) return;
    if (this.#credentials.some((known) => known.value === value)) return;
    this.#credentials.push({ name, value });
    // Longest first: a value inside another is masked as part of the longer one.
    this.#credentials.sort((a, b) => b.value.length - a.value.length);
  }

  get credentials(): readonly Credential[] {
    return this.#credentials;
  }

  /** The first credential `text` holds, by its name; undefined when it holds none. */
  find(text: string): Credential | undefined {
    return this.#credentials.find((credential) => holds(text, credential.value));
  }

  /**
   * `text` with every credential it holds replaced by `***`, or (`keepLength`: a code frame,
   * whose caret must stay under its column) by as many `*`.
   */
  mask(text: string, keepLength = false): string {
    let masked = text;
    for (const { value } of this.#credentials) {
      if (!holds(masked, value)) continue;
      const stars = keepLength ? "*".repeat(value.length) : "***";
      masked =
        value.length < WHOLE_WORD_BELOW
          ? masked.replace(wholeWord(value), stars)
          : masked.replaceAll(value, stars);
    }
    return masked;
  }
}

function holds(text: string, value: string): boolean {
  if (!text.includes(value)) return false;
  return value.length >= WHOLE_WORD_BELOW || wholeWord(value).test(text);
}

function wholeWord(value: string): RegExp {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "gu");
}

/** The registry of `env` (default: the command's environment, as it is now). */
export function secretsOf(env: Env = commandIo().env): SecretRegistry {
  return new SecretRegistry(env);
}
