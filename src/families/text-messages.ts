import * as z from "zod";
import { BRAND, imageRef, int, num, object, oneOf, request } from "./common.js";
import {
  anyModel,
  anyObject,
  byKind,
  byType,
  eitherTemperatureOrTopP,
  oneText,
} from "./text-shapes.js";
import type { Family } from "./types.js";

/**
 * Messages: `POST /v1/messages`, any model id, with a required `<brand>-version` header
 * (`x-api-key` is the client's own credential header). The tool-result block a client returns
 * is not shown in the spec, so only text, image and tool_use blocks are accepted.
 */

// Base64 images carry their bytes in `data` (with `media_type`), so a URL source is URL-only.
const imageSource = byType({
  url: object({ type: z.literal("url"), url: imageRef({ dataUri: false }) }),
  base64: object({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
});

const block = byType({
  text: object({ type: z.literal("text"), text: z.string() }),
  image: object({ type: z.literal("image"), source: imageSource }),
  tool_use: object({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: anyObject(),
  }),
});

// A final assistant message prefills the reply, so the last role is not restricted.
const message = object({
  role: oneOf(["user", "assistant"]),
  content: byKind({ string: z.string(), array: z.array(block) }),
});

// The built-in tools' other fields are not shown: beyond `type` and `name` any are accepted.
const builtIn = (type: string) =>
  z.looseObject({ type: z.literal(type), name: z.string().optional() });

// Custom tools carry no `type`; a tool is called by its name against its input schema.
const tool = byType(
  {
    computer_20241022: builtIn("computer_20241022"),
    text_editor_20241022: builtIn("text_editor_20241022"),
    bash_20241022: builtIn("bash_20241022"),
  },
  object({ name: z.string(), description: z.string().optional(), input_schema: anyObject() }),
);

const toolChoice = byType({
  auto: object({ type: z.literal("auto") }),
  any: object({ type: z.literal("any") }),
  tool: object({ type: z.literal("tool"), name: z.string() }),
});

const schema = request(
  {
    model: anyModel(),
    messages: z.array(message).min(1),
    // Present in every example of the spec but not marked required; the ceiling is per model.
    max_tokens: int(1).optional(),
    system: byKind({
      string: z.string(),
      array: z.array(object({ type: z.literal("text"), text: z.string() })),
    }).optional(),
    temperature: num(0, 1).optional(),
    top_p: num(0, 1).optional(),
    top_k: int(1).optional(),
    stream: z.boolean().optional(),
    stop_sequences: z.array(z.string()).max(4).optional(),
    metadata: object({ user_id: z.string().optional() }).optional(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
  },
  eitherTemperatureOrTopP,
);

export const textMessages: Family = {
  id: "text-messages",
  title: "messages",
  lane: "text",
  endpoint: "/v1/messages",
  models: [],
  schema,
  imageInputs: [{ path: ["messages", "*", "content", "*", "source", "url"], dataUri: false }],
  // Accepted version dates are not shown; only the YYYY-MM-DD form is checked. Header names
  // are case-insensitive in HTTP.
  headers: [
    {
      label: "<brand>-version",
      name: new RegExp(`^${BRAND}-version$`, "i"),
      value: /^\d{4}-\d{2}-\d{2}$/,
    },
  ],
  expectedOutputs: oneText,
  // The spec states no price for text calls.
  estimateCost: () => null,
};
