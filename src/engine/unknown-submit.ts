import { GatewayError, mayHaveArrived } from "../gateway/index.js";

/** A try that may have made its task, not retried because `on_unknown_submit` is `hold`. */
export class HeldSubmit extends Error {
  constructor(readonly error: Error) {
    super(
      `held: the submit may have made the task (${error.message}); gwrun retry --held sends it again`,
      { cause: error },
    );
  }
}

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
