import { GatewayClient } from "../../src/gateway/index.js";
import { type SimOptionsInput, type Simulator, startSimulator } from "../../src/sim/index.js";
import { ManualClock } from "./clock.js";

export interface SimScope {
  sim: Simulator;
  client: GatewayClient;
  clock: ManualClock;
}

/**
 * Runs `fn` against a fresh simulator on a free port, on a manual clock, with gwrun's own
 * client; both are released afterwards.
 */
export async function withSimulator<T>(
  options: SimOptionsInput,
  fn: (scope: SimScope) => Promise<T>,
  clientOptions: { apiKey?: string; messagesVersion?: { header: string; value: string } } = {},
): Promise<T> {
  const clock = new ManualClock();
  const sim = await startSimulator({ clock, streamDelayMs: 0, ...options });
  const client = new GatewayClient({
    baseUrl: sim.url,
    apiKey: clientOptions.apiKey ?? "test-key",
    messagesVersion: clientOptions.messagesVersion ?? {
      header: "acme-version",
      value: "2023-06-01",
    },
    clock,
  });
  try {
    return await fn({ sim, client, clock });
  } finally {
    await client.close();
    await sim.close();
  }
}

/** Ten minutes of gateway time: every simulated task has finished by then. */
export const LONG_ENOUGH_MS = 10 * 60 * 1000;
