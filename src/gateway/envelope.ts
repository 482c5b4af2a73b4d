import { ErrorCode } from "../core/errors.js";
import { isRecord } from "../core/values.js";
import { GatewayError } from "./errors.js";
import { gatewayText } from "./gateway-text.js";

/** A receipt of an accepted submit. */
export interface SubmitReceipt {
  taskId: string;
  /** `submitted`, or `processing` for image family B. */
  status: string;
  /** The rate the gateway announced with this answer, per second, if any. */
  rateLimitPerSecond?: number;
}

export function badResponse(what: string, problem: string): GatewayError {
  return new GatewayError(ErrorCode.BadResponse, `${what}: unexpected response: ${problem}`);
}

/** The `data` of a success envelope: `code` is 200, or `"success"` for image family B. */
export function envelopeData(json: unknown, what: string): unknown {
  if (!isRecord(json)) throw badResponse(what, "the body is not a JSON object");
  const { code } = json;
  if (code !== 200 && code !== "200" && code !== "success") {
    const message =
      typeof json.message === "string" && json.message !== ""
        ? ` (${gatewayText(json.message)})`
        : "";
    throw badResponse(what, `envelope code ${JSON.stringify(code)}${message}`);
  }
  return json.data;
}

/** The receipt of a submit envelope: `data[0]` with a `task_id` that begins with `task_`. */
export function readReceipt(json: unknown, what: string): SubmitReceipt {
  const data = envelopeData(json, what);
  const receipt = Array.isArray(data) ? data[0] : data;
  if (!isRecord(receipt) || typeof receipt.task_id !== "string" || receipt.task_id === "") {
    throw badResponse(what, "no task_id in the receipt");
  }
  return {
    taskId: receipt.task_id,
    status: typeof receipt.status === "string" ? receipt.status : "submitted",
  };
}
