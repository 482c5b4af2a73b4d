/** `gwrun watch`: a folder's new files run as they land, each batch one run under the manifest's lease. */

export {
  type Batch,
  type BatchOutcome,
  FolderWatch,
  type FolderWatchOptions,
  RESCAN_MS,
  type WatchedManifest,
} from "./folder-watch.js";
export { scanFiles, type WatchedFolder, watchedFolders } from "./scan.js";
export { SettleRule, type Signature, type Unsettled } from "./settle.js";
export { notWholeYet } from "./whole.js";
