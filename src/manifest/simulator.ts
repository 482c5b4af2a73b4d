import { DEFAULTS } from "./settings.js";
import type { ManifestSource } from "./source.js";

/**
 * The built-in simulator (`base_url: sim`, also the default) makes stand-in outputs and takes
 * no money: a run that talks to it must say so, and say why, since a forgotten variable in
 * `${GW_BASE_URL:-sim}` is enough to land there.
 */

/** Whether a base URL names the built-in simulator. */
export function isSimulator(baseUrl: string): boolean {
  return baseUrl === DEFAULTS.baseUrl;
}

/** Why a run talks to the simulator: the flag, a variable left unset, the default, or the manifest's word. */
export function whySimulator(
  source: ManifestSource,
  env: NodeJS.ProcessEnv,
  flag: string | undefined,
): string {
  if (flag !== undefined) return "--base-url sim";
  const written = source.doc.getIn(["gateway", "base_url"]);
  if (written === undefined || written === null) return "the manifest names no gateway.base_url";
  const unset = [...String(written).matchAll(/\$\{(\w+)(?::?-[^}]*)?\}/g)]
    .map((match) => match[1] as string)
    .filter((name) => env[name] === undefined || env[name] === "");
  if (unset.length > 0)
    return `${unset.join(", ")} ${unset.length === 1 ? "is" : "are"} not set, so base_url "${String(written)}" falls back to sim`;
  return written === "sim" ? "base_url: sim" : `base_url "${String(written)}" is sim`;
}
