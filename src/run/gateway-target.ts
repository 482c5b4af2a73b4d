import { ErrorCode, GwError } from "../core/errors.js";
import { commandIo } from "../core/io.js";
import { type Proxies, readProxies } from "../gateway/index.js";
import { isSimulator, type ManifestSettings, type PriceTable } from "../manifest/index.js";
import type { Simulator } from "../sim/index.js";

/** Where a run sends its requests, and what to release afterwards. */
export interface GatewayTarget {
  baseUrl: string;
  apiKey: string;
  /** The in-process simulator, for `base_url: sim`. */
  simulator: Simulator | undefined;
  /** The proxies requests go through (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); none: direct. */
  proxies: Proxies | undefined;
  /** Gateway seconds per real second: 1 for a real gateway. */
  timeScale: number;
  close(): Promise<void>;
}

/** Time scale of the in-process simulator: a 45 s image takes under a second. */
export const IN_PROCESS_TIME_SCALE = 60;

/**
 * Opens the manifest's gateway: `base_url: sim` starts the simulator in-process on a free
 * loopback port (time scale from GWRUN_SIM_TIME_SCALE, default 60), reached directly (it is
 * this process's own server, whatever proxy is set); any other value is used as is, with the
 * API key from the manifest or GW_API_KEY, through the proxies the environment sets.
 * The simulator charges by `prices` (a manifest's table) where it names a model.
 */
export async function openGatewayTarget(
  gateway: ManifestSettings["gateway"],
  env: NodeJS.ProcessEnv = commandIo().env,
  options: { keyMasked?: boolean; prices?: PriceTable } = {},
): Promise<GatewayTarget> {
  const apiKey = gateway.apiKey ?? env.GW_API_KEY;
  if (!isSimulator(gateway.baseUrl)) {
    if ((apiKey === undefined || apiKey === "") && options.keyMasked === true) {
      throw new GwError(
        ErrorCode.Usage,
        `no API key for ${gateway.baseUrl}: the run's manifest had its key written in it, and the copy kept with the run has it masked`,
        { hint: "set GW_API_KEY to that key in the environment, then run this command again" },
      );
    }
    if (apiKey === undefined || apiKey === "") {
      throw new GwError(ErrorCode.Usage, `no API key for ${gateway.baseUrl}`, {
        hint: "set GW_API_KEY in the environment (the manifest may also read another variable with gateway.api_key)",
      });
    }
    return {
      baseUrl: gateway.baseUrl,
      apiKey,
      simulator: undefined,
      proxies: readProxies(env),
      timeScale: 1,
      close: async () => {},
    };
  }
  const timeScale = Number(env.GWRUN_SIM_TIME_SCALE ?? IN_PROCESS_TIME_SCALE);
  if (!(timeScale > 0)) {
    throw new GwError(
      ErrorCode.Usage,
      `GWRUN_SIM_TIME_SCALE must be a positive number, got "${env.GWRUN_SIM_TIME_SCALE}"`,
    );
  }
  // Loaded only here: the simulator brings sharp and ffmpeg along.
  const { startSimulator } = await import("../sim/index.js");
  // It charges by the manifest's prices, so what `plan` estimates is what the run pays.
  const simulator = await startSimulator({ port: 0, timeScale, prices: options.prices });
  return {
    baseUrl: simulator.url,
    // The simulator accepts any non-empty key.
    apiKey: apiKey === undefined || apiKey === "" ? "sim" : apiKey,
    simulator,
    proxies: undefined,
    timeScale,
    close: () => simulator.close(),
  };
}

/**
 * The manifest's waits in the target's time: a simulator running `timeScale` times faster
 * finishes tasks sooner, so polls and retry delays shrink by as much. The only place the
 * simulator's time scale reaches the run.
 */
export function inGatewayTime(settings: ManifestSettings, timeScale: number): ManifestSettings {
  if (timeScale === 1) return settings;
  const { poll, retry } = settings;
  // Whole milliseconds, as the stores keep times (a PostgreSQL BIGINT takes no fraction).
  const scaled = (ms: number) => Math.round(ms / timeScale);
  return {
    ...settings,
    poll: {
      ...poll,
      firstAfterMs: scaled(poll.firstAfterMs),
      everyMs: Math.max(1, scaled(poll.everyMs)),
      giveUpAfterMs: poll.giveUpAfterMs === undefined ? undefined : scaled(poll.giveUpAfterMs),
    },
    retry: {
      ...retry,
      minDelayMs: scaled(retry.minDelayMs),
      maxDelayMs: scaled(retry.maxDelayMs),
    },
  };
}
