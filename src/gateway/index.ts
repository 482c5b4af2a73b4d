/** The only module that speaks HTTP: to the gateway, webhooks, and a `rows:` URL. */
export type { QueryTurn, TaskBatch } from "./batch.js";
export { GatewayClient, type GatewayOptions } from "./client.js";
export type { DownloadOptions, DownloadResult } from "./download.js";
export type { SubmitReceipt } from "./envelope.js";
export { GatewayError } from "./errors.js";
export { GATEWAY_TEXT_MAX, gatewayText } from "./gateway-text.js";
export { type NetworkProxy, type Proxies, readProxies } from "./proxy.js";
export { backoffMs, isRetryable, mayHaveArrived, type RetryPolicy, withRetry } from "./retry.js";
export {
  type BodyFetch,
  type BodyFetchOptions,
  fetchBodies,
  ROWS_MAX_REDIRECTS,
} from "./rows-fetch.js";
export { type OutputLink, outputLinks, type TaskRecord } from "./task-record.js";
export { isDeclined, type TextAnswer, type TextFormat, type ToolCall } from "./text-answer.js";
export { postWebhook, shownWebhook, type WebhookDelivery } from "./webhook.js";
