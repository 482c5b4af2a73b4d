import { isRecord } from "../core/values.js";
import {
  describeError,
  fail,
  recordOrNull,
  type TextAnswer,
  type TextFormat,
} from "./text-answer.js";
import { readChoices } from "./text-chat.js";
import { readMessage } from "./text-messages.js";
import { readNative } from "./text-native.js";
import { readResponse } from "./text-responses.js";

/** Reads a non-streamed reply body (the parsed JSON, envelope included; tolerate a bare vendor object without envelope too). */
export function readTextReply(format: TextFormat, json: unknown): TextAnswer {
  const where = `${format} reply`;
  if (!isRecord(json)) fail(where, "the body is not a JSON object");
  if (isRecord(json.error)) fail(where, `the gateway reported ${describeError(json.error)}`);
  let data: unknown = json;
  if ("code" in json && "data" in json) {
    if (json.code !== 200 && json.code !== "200" && json.code !== "success") {
      fail(where, `envelope code ${JSON.stringify(json.code)}`);
    }
    data = json.data;
  }
  if (!isRecord(data)) fail(where, "data is not an object");
  switch (format) {
    case "chat":
      return readChoices(data, where);
    case "responses":
      return readResponse(data, where);
    case "messages":
      return readMessage(data, where);
    case "native": {
      // The spec's example puts usageMetadata beside data; the vendor puts it inside.
      const usage = recordOrNull(json.usageMetadata) ?? recordOrNull(data.usageMetadata);
      return readNative(data, usage, where);
    }
    default:
      return fail(where, `unknown text format ${String(format satisfies never)}`);
  }
}
