/**
 * A run put together for any driver — the single-process engine or a fleet's worker: the
 * gateway it talks to (the built-in simulator started in this process for `base_url: sim`),
 * and the engine's options with checks and thumbnails.
 */
export {
  type GatewayTarget,
  IN_PROCESS_TIME_SCALE,
  inGatewayTime,
  openGatewayTarget,
} from "./gateway-target.js";
export { engineOptions, type OpenedGateway, openGateway, type RunWork } from "./setup.js";
