/** Post-processing: output checks and thumbnails during a run; results.jsonl and the gallery after. */

export { THUMBS_DIR } from "../core/output-files.js";
export { bytesHaveC2pa, hasC2pa } from "./c2pa.js";
export { defaultTolerance } from "./check-clip.js";
export { type Exported, exportApproved, REVIEW_CSV } from "./export.js";
export { type PngStructure, pngStructure } from "./png-structure.js";
export { PostProcessor, type PostProcessorOptions } from "./post-processor.js";
export { type RecordWithExtras, readSidecar, withOutputExtras } from "./record-extras.js";
export { makeRenditions, type RenditionSettings, type RenditionsMade } from "./renditions-pass.js";
export {
  GALLERY_FILE,
  RESULTS_FILE,
  type ReportOf,
  type ReportWritten,
  writeReport,
  writeReports,
} from "./report.js";
export { type ReviewRecord, reviewRecord } from "./review-record.js";
export { maySelect, selectionsOf, withSelection } from "./selection.js";
