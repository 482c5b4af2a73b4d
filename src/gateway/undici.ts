import type * as Undici from "undici";

let loading: Promise<typeof Undici> | undefined;

/**
 * undici, loaded when a request is first made: a command that sends nothing (`gwrun status`,
 * `view`, `report`) never reads its hundred-odd files at start. The modules that send through
 * it are the network's only ones, each bounded by the timeout policy (test/unit/core/gates.test.ts).
 */
export function undici(): Promise<typeof Undici> {
  loading ??= import("undici");
  return loading;
}
