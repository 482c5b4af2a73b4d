import { setTimeout as sleep } from "node:timers/promises";
import { commandIo } from "../core/io.js";
import { timeoutsOf } from "../core/timeouts.js";
import { MASK } from "./gateway-text.js";
import { outboundDispatcher, readProxies } from "./proxy.js";
import { undici } from "./undici.js";

/**
 * Webhooks: a JSON body POSTed to a URL the manifest names, such as a Slack incoming webhook.
 * The URL is a secret (Slack's carry a token in the path), so messages show only its scheme
 * and host. Requests go through the proxies the environment sets, as the gateway's do.
 */

/** Tries in all, the first included; then the delivery is given up. */
const WEBHOOK_TRIES = 3;
/** The first wait between tries; it doubles after each. */
const FIRST_WAIT_MS = 500;

/** A webhook's URL as messages show it: "https://hooks.slack.com/***". */
export function shownWebhook(url: string): string {
  return URL.canParse(url) ? `${new URL(url).origin}/${MASK}` : MASK;
}

/** What became of a delivery: delivered, or why not (for a message; the URL is masked). */
export type WebhookDelivery =
  | { delivered: true; tries: number }
  | { delivered: false; why: string };

/**
 * POSTs `body` as JSON, retrying a 5xx, a 429 or a broken connection with doubling waits, up
 * to 3 tries, all within `timeoutMs` (a webhook that never answers costs at most that). Never
 * throws: a failed delivery is reported by its caller, not fatal.
 */
export async function postWebhook(
  url: string,
  body: unknown,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = commandIo().env,
): Promise<WebhookDelivery> {
  const signal = AbortSignal.timeout(timeoutMs);
  const { request } = await undici();
  const dispatcher = await outboundDispatcher(
    { connectMs: Math.min(timeoutMs, timeoutsOf(env).webhook.connectMs), answerMs: timeoutMs },
    safeProxies(env),
  );
  const payload = JSON.stringify(body);
  let why = "";
  try {
    for (let tries = 1; tries <= WEBHOOK_TRIES; tries++) {
      try {
        const answer = await request(url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "gwrun" },
          body: payload,
          dispatcher,
          signal,
        });
        await answer.body.dump();
        if (answer.statusCode < 300) return { delivered: true, tries };
        why = `it answered HTTP ${answer.statusCode}`;
        if (answer.statusCode < 500 && answer.statusCode !== 429) break;
      } catch {
        why = signal.aborted
          ? `no answer within ${timeoutMs / 1000}s`
          : "the connection failed or broke";
        if (signal.aborted) break;
      }
      if (tries < WEBHOOK_TRIES)
        await sleep(FIRST_WAIT_MS * 2 ** (tries - 1), undefined, { signal });
    }
  } catch {
    why = `no answer within ${timeoutMs / 1000}s`;
  } finally {
    await dispatcher.destroy();
  }
  return { delivered: false, why: `${shownWebhook(url)}: ${why}` };
}

/** The environment's proxies; one that cannot be read is left out (the run has said so). */
function safeProxies(env: NodeJS.ProcessEnv) {
  try {
    return readProxies(env);
  } catch {
    return undefined;
  }
}
