import * as z from "zod";
import { int, num, numberAt, object, oneOf, request } from "./common.js";
import {
  anyModel,
  byKind,
  eitherTemperatureOrTopP,
  functionDeclaration,
  oneText,
  vendorFields,
  vendorOnly,
} from "./text-shapes.js";
import type { Family } from "./types.js";

/**
 * Chat completions: `POST /v1/chat/completions`, any model id. The spec shows `content` only as
 * a string (the array form is not shown) and lists no `tools` for this endpoint; the vendor
 * format's function `tools` and `tool_choice` are taken with a warning.
 */

const message = object({
  role: oneOf(["system", "user", "assistant"]),
  content: z.string(),
});

const tool = object({ type: z.literal("function"), function: functionDeclaration });

const toolChoice = byKind({
  string: oneOf(["none", "auto", "required"]),
  object: object({ type: z.literal("function"), function: object({ name: z.string() }) }),
});

const schema = request(
  {
    model: anyModel(),
    messages: z.array(message).min(1),
    temperature: num(0, 2).optional(),
    // The ceiling is model dependent and not stated.
    max_tokens: int(1).optional(),
    // Defaults to true here (an SSE stream), unlike responses and messages.
    stream: z.boolean().optional(),
    top_p: num(0, 1).optional(),
    frequency_penalty: num(-2, 2).optional(),
    presence_penalty: num(-2, 2).optional(),
    stop: byKind({ string: z.string(), array: z.array(z.string()).max(4) }).optional(),
    n: int(1).optional(),
    tools: vendorOnly(z.array(tool)).optional(),
    tool_choice: vendorOnly(toolChoice).optional(),
  },
  (body, report) => {
    eitherTemperatureOrTopP(body, report);
    vendorFields(["tools", "tool_choice"])(body, report);
  },
);

export const textChat: Family = {
  id: "text-chat",
  title: "chat completions",
  lane: "text",
  endpoint: "/v1/chat/completions",
  models: [],
  schema,
  imageInputs: [],
  // One response per task; with n > 1 each of its choices is an output of its own.
  expectedOutputs: (body) => ({ ...oneText(), count: numberAt(body, "n") ?? 1 }),
  // The spec states no price for text calls.
  estimateCost: () => null,
};
