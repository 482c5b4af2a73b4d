import { GatewayError, mayHaveArrived } from "../gateway/index.js";

/**
 * Whether a failed generating call may still have made (and billed) its task: a connection
 * lost after the request was sent, or a 5xx, which a gateway may send after creating the task.
 * Such a try is counted as an unknown submit, and `retry.on_unknown_submit` decides whether
 * to send it again.
 */
export function submitMayHaveArrived(error: unknown): boolean {
  if (mayHaveArrived(error)) return true;
  return error instanceof GatewayError && error.status !== undefined && error.status >= 500;
}
