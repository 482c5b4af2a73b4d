export {
  checkTargets,
  type ObjectStorage,
  openObjectStorage,
  withinEnd,
} from "./object-storage.js";
export {
  type HeldTarget,
  heldTargets,
  heldTargetsIn,
  heldTargetText,
  refuseHeldTargets,
} from "./prefix-owners.js";
export { type PublishPlace, publishTask, type TaskPublished } from "./publish-outputs.js";
export { publishFolderFiles, publishRun, type RunPublished } from "./publish-run.js";
export { outputPublisher } from "./publisher.js";
export {
  fetchMissing,
  objectBody,
  type ReadPlace,
  recordedObject,
} from "./read-objects.js";
export { type PublishNews, publishFolderRecord, publishRunOutputs } from "./run-news.js";
