/**
 * A run put together for any driver — the single-process engine or a fleet's worker: the
 * gateway it talks to (the built-in simulator started in this process for `base_url: sim`),
 * and the engine's options with checks and thumbnails.
 */

export { endRun, type RunEnded, type RunEnding } from "./end.js";
export {
  type GatewayTarget,
  IN_PROCESS_TIME_SCALE,
  inGatewayTime,
  openGatewayTarget,
} from "./gateway-target.js";
export { Releasers } from "./releasers.js";
export { recordedRows, recordedRowsLines, rowSourcesOf } from "./row-sources.js";
export {
  openRun,
  openStorage,
  type RunOpening,
  type RunSession,
  StorageRefused,
} from "./session.js";
export { engineOptions, type OpenedGateway, openGateway, type RunWork } from "./setup.js";
