/** Tools for text-call tests: function tools (chat, responses), a messages custom tool, native declarations. */

export const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city", "days"],
    },
  },
};

export const skuTool = {
  name: "lookup_sku",
  description: "Find a product",
  input_schema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
};

/** The messages tool as a chat or responses function tool. */
export const skuFunction = {
  type: "function",
  function: {
    name: skuTool.name,
    description: skuTool.description,
    parameters: skuTool.input_schema,
  },
};

/** Both functions as native `functionDeclarations`. */
export const nativeTools = [{ functionDeclarations: [weatherTool.function, skuFunction.function] }];
