/** Tools for text-call tests: a responses function tool and a messages custom tool. */

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
