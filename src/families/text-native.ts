import * as z from "zod";
import { booleanAt, model, modelField, object, request, stringAt } from "./common.js";
import {
  anyObject,
  functionDeclaration,
  oneText,
  vendorFields,
  vendorOnly,
} from "./text-shapes.js";
import type { Family, RequestBody } from "./types.js";

/**
 * Native content generation: `POST /v1beta/models/<model>:<method>`. A job names `model` and
 * `stream` like the other text families; both go into the path, not the body: `stream: true`
 * selects `streamGenerateContent`, otherwise `generateContent`. The spec lists no tools; the
 * vendor format's `tools` (of `functionDeclarations`) and `toolConfig` are taken with a warning.
 */

/** The four variants the spec lists: `<brand>-2.5-` + flash, pro, flash-lite, pro-thinking. */
const MODELS = ["flash", "pro", "flash-lite", "pro-thinking"].map((variant) =>
  model(`<brand>-2.5-${variant}`),
);

export const TEXT_NATIVE_MODEL_EXAMPLES = MODELS.map(({ example }) => example);

// The spec shows text parts; pictures go as the vendor protocol's inline parts (base64 bytes).
const part = object({
  text: z.string().optional(),
  inline_data: object({ mime_type: z.string(), data: z.string() }).optional(),
}).check((ctx) => {
  if (ctx.value.text === undefined && ctx.value.inline_data === undefined)
    ctx.issues.push({
      code: "invalid_type",
      expected: "string",
      input: undefined,
      path: ["text"],
      message: "a part has text (or inline_data: a picture)",
    });
});

// The spec names the fields of native content, not the values of role.
const content = object({
  role: z.string().optional(),
  parts: z.array(part),
});

// Other vendor tools (search, code execution) are objects of their own: any fields are accepted.
const tool = z.looseObject({ functionDeclarations: z.array(functionDeclaration).optional() });

const schema = request(
  {
    // Unlike the other text endpoints, this section lists its models; a newer one needs passthrough.
    model: modelField(MODELS, "set passthrough: true to send a newer model unchecked"),
    stream: z.boolean().optional(),
    contents: z.array(content).min(1),
    // The fields of generationConfig and safetySettings are not shown.
    generationConfig: anyObject().optional(),
    safetySettings: z.array(anyObject()).optional(),
    tools: vendorOnly(z.array(tool)).optional(),
    // The fields of toolConfig (functionCallingConfig's mode and allowed names) are the vendor's.
    toolConfig: vendorOnly(anyObject()).optional(),
  },
  vendorFields(["tools", "toolConfig"]),
);

/** The request path: model and method, from the job's `model` and `stream`. */
export function textNativePath(body: RequestBody): string {
  const model = stringAt(body, "model");
  const method = booleanAt(body, "stream") === true ? "streamGenerateContent" : "generateContent";
  return `/v1beta/models/${model === undefined ? "{model}" : encodeURIComponent(model)}:${method}`;
}

export const textNative: Family = {
  id: "text-native",
  title: "native content generation",
  lane: "text",
  endpoint: "/v1beta/models/{model}:generateContent",
  models: [],
  schema,
  imageInputs: [],
  path: textNativePath,
  expectedOutputs: oneText,
  // The spec states no price for text calls.
  estimateCost: () => null,
};
