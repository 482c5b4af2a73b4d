/** Model families: one file each, one registry, and the checks that apply them to jobs. */

export type { PriceRule, PriceTable } from "../manifest/index.js";
export { type CheckedJob, checkJobs } from "./check-jobs.js";
export {
  type CheckedManifest,
  type CheckOptions,
  checkedJobs,
  checkManifestFile,
  checkManifestText,
} from "./check-manifest.js";
export { parsePixels, stringAt } from "./common.js";
export { type DataUriCache, dataUriImageIssues, describeDataUri } from "./data-uri-images.js";
export {
  type FamilyReference,
  type FieldReference,
  familyReference,
  requestJsonSchema,
} from "./field-reference.js";
export {
  answerInstruction,
  JUDGE_ENDPOINTS,
  JUDGE_IMAGE_MAX_BYTES,
  type JudgeImage,
  judgeRequest,
  takesImageLinks,
} from "./judge-request.js";
export { imageValues } from "./local-images.js";
export {
  estimatedTokens,
  ruleFor,
  taskCost,
  usageCost,
} from "./prices.js";
export { PUBLIC_URL_RULE, privateHostKind, privateUrlProblem } from "./public-urls.js";
export { FAMILIES } from "./registry.js";
export { familyFields, familyFor, familyForRequest, suggestModel } from "./resolve.js";
export type { ExpectedOutputs, Family, ImageInputRule, RequestBody } from "./types.js";
export { type RequestIssue, validateRequest } from "./validate.js";
