import type { ServerResponse } from "node:http";
import type { SimContext } from "./context.js";
import { scaled } from "./context.js";
import { countError } from "./counters.js";
import { linkFor } from "./files.js";
import { sendError, sendJson } from "./http.js";
import { sentBrokenPoll } from "./poll-faults.js";
import { type TaskTicket, taskRecord, ticketOf } from "./tasks.js";

/** Batch queries take at most this many ids (the spec states no limit). */
export const MAX_BATCH = 500;

/** `GET /v1/tasks/{task_id}`: the Task record, or an error for unknown and expired ids. */
export function queryTask(
  context: SimContext,
  res: ServerResponse,
  origin: string,
  taskId: string,
  echo?: string,
): void {
  context.counters.queries.single += 1;
  if (sentBrokenPoll(context, res, taskId)) return;
  const record = recordOf(context, origin, taskId);
  if (record === undefined) {
    countError(context.counters, 404);
    sendError(res, 404, `task ${taskId} does not exist or has expired`);
    return;
  }
  sendJson(res, 200, { code: 200, data: echoed(record, echo) });
}

/**
 * `POST /v1/tasks/batch`: the spec does not show its body. By default a list of Task records
 * (unknown and expired ids are left out); other shapes on request, to test clients.
 */
export function queryBatch(
  context: SimContext,
  res: ServerResponse,
  origin: string,
  body: unknown,
  echo?: string,
): void {
  const { options, counters } = context;
  if (options.batchShape === "missing") {
    countError(counters, 404);
    sendError(res, 404, "no route for POST /v1/tasks/batch");
    return;
  }
  const ids = (body as { task_ids?: unknown } | null)?.task_ids;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
    countError(counters, 400);
    sendError(res, 400, "task_ids: must be an array of task id strings");
    return;
  }
  if (ids.length > MAX_BATCH) {
    countError(counters, 400);
    sendError(res, 400, `task_ids: at most ${MAX_BATCH} ids per batch, got ${ids.length}`);
    return;
  }
  counters.queries.batch += 1;
  counters.queries.batch_tasks += ids.length;
  if (sentBrokenPoll(context, res, ids.join(","))) return;
  const records = ids.flatMap((id): Record<string, unknown>[] => {
    const record = recordOf(context, origin, id);
    return record === undefined ? [] : [echoed(record, echo)];
  });
  switch (options.batchShape) {
    case "list":
      sendJson(res, 200, { code: 200, data: records });
      return;
    case "object":
      sendJson(res, 200, { code: 200, data: { tasks: records } });
      return;
    case "map":
      sendJson(res, 200, { code: 200, data: Object.fromEntries(records.map((r) => [r.id, r])) });
      return;
    case "unreadable":
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"code":200,"data":[{"id":');
      return;
    default: {
      const never: never = options.batchShape;
      throw new Error(`unknown batch shape ${String(never)}`);
    }
  }
}

function recordOf(
  context: SimContext,
  origin: string,
  taskId: string,
): Record<string, unknown> | undefined {
  const ticket = ticketOf(taskId);
  if (ticket === undefined || isPastRetention(context, ticket)) return undefined;
  const { options } = context;
  const record = taskRecord(
    taskId,
    ticket,
    options.clock.now(),
    (index, expiresAt) =>
      linkFor(
        origin,
        ticket.outputs as NonNullable<TaskTicket["outputs"]>,
        ticket.nonce,
        index,
        expiresAt,
      ),
    scaled(context, options.linkTtlSeconds),
    options.videoResult,
  );
  return unpublished(context, taskId, record);
}

/** A completed task's record without its result while the unpublished-result fault holds it back. */
function unpublished(
  context: SimContext,
  taskId: string,
  record: Record<string, unknown>,
): Record<string, unknown> {
  const withheld = context.options.faults.unpublishedResultPolls;
  if (record.status !== "completed" || record.result === undefined || withheld <= 0) return record;
  const seen = context.unpublished.get(taskId) ?? 0;
  if (seen >= withheld) return record;
  context.unpublished.set(taskId, seen + 1);
  countError(context.counters, "unpublished_result");
  const { result: _result, ...rest } = record;
  return rest;
}

function isPastRetention(context: SimContext, ticket: TaskTicket): boolean {
  return (
    context.options.clock.now() >
    ticket.createdAt + scaled(context, context.options.retentionSeconds)
  );
}

/** A failed task's message repeating the credentials of the query (the echo-key fault). */
function echoed(
  record: Record<string, unknown>,
  echo: string | undefined,
): Record<string, unknown> {
  const error = record.error as { message?: string } | undefined;
  if (echo === undefined || error === undefined) return record;
  return {
    ...record,
    error: {
      message: `${error.message} (request sent with Authorization: ${echo}; key ${echo.replace(/^Bearer\s+/i, "")})`,
    },
  };
}
