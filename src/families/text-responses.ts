import * as z from "zod";
import { imageRef, int, num, object, oneOf, request } from "./common.js";
import { anyModel, byKind, byType, httpUrl, jsonSchema, oneText } from "./text-shapes.js";
import type { Family } from "./types.js";

/** Responses: `POST /v1/responses`, any model id; input items with text and image blocks, tools. */

const MB = 1024 * 1024;

// Several text and image blocks per item are allowed; text first is only recommended.
const block = byType({
  input_text: object({ type: z.literal("input_text"), text: z.string() }),
  input_image: object({ type: z.literal("input_image"), image_url: imageRef({ dataUri: true }) }),
});

const inputItem = object({
  role: oneOf(["user", "assistant", "system"]),
  content: z.array(block),
});

const tool = byType({
  web_search: object({ type: z.literal("web_search") }),
  file_search: object({ type: z.literal("file_search") }),
  function: object({
    type: z.literal("function"),
    function: object({
      name: z.string(),
      description: z.string(),
      parameters: jsonSchema.optional(),
    }),
  }),
  remote_mcp: object({
    type: z.literal("remote_mcp"),
    remote_mcp: object({
      url: httpUrl(),
      auth_token: z.string().optional(),
      // Seconds; 30 when omitted.
      timeout: z.number().positive().optional(),
    }),
  }),
});

const schema = request({
  model: anyModel(),
  input: byKind({ string: z.string().min(1), array: z.array(inputItem) }),
  temperature: num(0, 2).optional(),
  // The ceiling is model dependent and not stated.
  max_tokens: int(1).optional(),
  stream: z.boolean().optional(),
  // Unlike chat and messages, this table does not say to use either top_p or temperature.
  top_p: num(0, 1).optional(),
  tools: z.array(tool).optional(),
});

export const textResponses: Family = {
  id: "text-responses",
  title: "responses",
  lane: "text",
  endpoint: "/v1/responses",
  models: [],
  schema,
  // 2048×2048 px is only a recommendation, so sides are not limited.
  imageInputs: [
    {
      path: ["input", "*", "content", "*", "image_url"],
      dataUri: true,
      formats: ["jpeg", "png", "gif", "webp"],
      maxBytes: 20 * MB,
    },
  ],
  expectedOutputs: oneText,
  // The spec states no price for text calls.
  estimateCost: () => null,
};
