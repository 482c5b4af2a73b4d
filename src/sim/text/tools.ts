import { isRecord } from "../../core/values.js";
import { keywordsOf } from "./words.js";

/**
 * Function calling: the model calls each tool the last user turn names, in the order named (or
 * the one the request forces), with arguments made up from the tool's JSON Schema and the
 * prompt's words.
 */

/** A callable tool: its name and the JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  schema: unknown;
}

/** The call the model makes. */
export interface ToolCallPlan {
  name: string;
  input: Record<string, unknown>;
}

/**
 * `"any"` forces some tool, a name forces that tool, `"none"` forbids them; otherwise a tool is
 * called only if named.
 */
export type ToolForce = "any" | "none" | { name: string } | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function mentionAt(text: string, name: string): number {
  const match = new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`, "i").exec(text);
  return match === null ? -1 : match.index;
}

/** The tool calls for this turn: every tool the text mentions, in order, or the forced one. */
export function planToolCalls(
  tools: readonly ToolSpec[],
  lastUser: string,
  force?: ToolForce,
): ToolCallPlan[] {
  if (force === "none") return [];
  const call = (tool: ToolSpec) => ({ name: tool.name, input: argumentsFor(tool, lastUser) });
  if (typeof force === "object") {
    const forced = tools.find((tool) => tool.name === force.name);
    return forced === undefined ? [] : [call(forced)];
  }
  const named = tools
    .map((tool) => ({ tool, at: mentionAt(lastUser, tool.name) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)
    .map(({ tool }) => call(tool));
  const first = tools[0];
  return named.length === 0 && force === "any" && first !== undefined ? [call(first)] : named;
}

/** The function tools of a chat or responses request: `{type: function, function: {name, parameters}}`. */
export function functionTools(tools: unknown): ToolSpec[] {
  const list = Array.isArray(tools) ? tools.filter(isRecord) : [];
  return list.flatMap((tool) => {
    const fn = tool.function;
    if (tool.type !== "function" || !isRecord(fn) || typeof fn.name !== "string") return [];
    return [{ name: fn.name, schema: fn.parameters }];
  });
}

/** Each required property: a string is a word of the prompt, a number 1, a boolean true. */
function argumentsFor(tool: ToolSpec, lastUser: string): Record<string, unknown> {
  const schema = isRecord(tool.schema) ? tool.schema : {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  // The tool's own name is not an argument value.
  const words = keywordsOf(lastUser.split(tool.name).join(" ")).reverse();
  const input: Record<string, unknown> = {};
  let nextWord = 0;
  for (const key of required) {
    if (typeof key !== "string") continue;
    const property = properties[key];
    const spec = isRecord(property) ? property : {};
    if (Array.isArray(spec.enum) && spec.enum.length > 0) {
      input[key] = spec.enum[0];
      continue;
    }
    const types = Array.isArray(spec.type) ? spec.type : [spec.type];
    const type = types.find((entry) => entry !== "null") ?? "string";
    if (type === "number" || type === "integer") input[key] = 1;
    else if (type === "boolean") input[key] = true;
    else if (type === "array") input[key] = [];
    else if (type === "object") input[key] = {};
    else {
      // Later string properties take earlier words: "weather for Paris" → city: "Paris".
      input[key] = words.length > 0 ? words[nextWord % words.length] : "example";
      nextWord += 1;
    }
  }
  return input;
}
