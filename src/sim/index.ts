/** The gateway simulator: the spec on loopback, with real media and injectable faults. */
export type { SimCounters } from "./counters.js";
export { LATENCY_KEYS } from "./latency.js";
export {
  BATCH_SHAPES,
  type BatchShape,
  NO_FAULTS,
  SIM_DEFAULTS,
  type SimFaults,
  type SimOptions,
  type SimOptionsInput,
  VIDEO_RESULTS,
  type VideoResult,
} from "./options.js";
export { type Simulator, startSimulator } from "./server.js";
