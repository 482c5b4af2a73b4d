/** Media tools: ffprobe's reading of a clip and the few ffmpeg commands gwrun runs. */

export { type Detached, startDetachedGwrun } from "./detached-gwrun.js";
export {
  detectFrames,
  encodeTestClip,
  extractFrame,
  type FrameInterval,
  type MediaProbe,
  type MediaRunOptions,
  type ProbedStream,
  probeMedia,
  runFfmpeg,
  type TestClip,
} from "./ffmpeg.js";
export {
  chooseTool,
  type MediaTool,
  MIN_SYSTEM_MAJOR,
  releaseMajor,
  TOOL_VARIABLES,
  type ToolChoice,
  type ToolSource,
} from "./ffmpeg-choice.js";
export { inspectMediaTool, inspectSharp, type SharpReport, type ToolReport } from "./inspect.js";
export { openInBrowser } from "./open-browser.js";
export { loadSharp } from "./sharp.js";
