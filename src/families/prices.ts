import { roundMoney } from "../core/money.js";
import { isRecord } from "../core/values.js";
import type { PriceRule, PriceTable } from "../manifest/index.js";
import type { Family, RequestBody } from "./types.js";

/**
 * What a task costs by a manifest's `prices:`, and by the contract where the manifest names
 * no price for its model (image family B's stated prices). One rule for `plan`, `max_cost`'s
 * reservations, the tasks a run records and the simulator's charges, so they agree.
 */

/** Output tokens a text request is counted at when it sets no maximum of its own. */
export const DEFAULT_OUTPUT_TOKENS = 1000;
/** Characters of request text per input token, for the estimate made before the call. */
export const CHARS_PER_TOKEN = 4;

/** The rule for a body's model in a table; undefined when the table names none. */
export function ruleFor(table: PriceTable, body: RequestBody): PriceRule | undefined {
  const model = body.model;
  return typeof model === "string" && Object.hasOwn(table, model) ? table[model] : undefined;
}

/**
 * The price of one task: by the manifest's rule for its model where there is one, else the
 * contract's. Null when neither says (or the rule cannot price this body: its `by` field's
 * value has no price, a clip's length is the source's).
 */
export function taskCost(
  family: Family | undefined,
  body: RequestBody,
  rule: PriceRule | undefined,
): number | null {
  if (rule === undefined) return family?.estimateCost(body) ?? null;
  const cost = ruleCost(rule, family, body);
  return cost === null ? null : roundMoney(cost);
}

function ruleCost(rule: PriceRule, family: Family | undefined, body: RequestBody): number | null {
  switch (rule.per) {
    case "task":
      return rule.amount;
    case "image":
      // Sequential sets are counted at their most.
      return rule.amount * (family?.expectedOutputs(body).count ?? 1);
    case "second": {
      const seconds = family?.expectedOutputs(body).durationSeconds;
      return seconds === undefined || seconds === null ? null : rule.amount * seconds;
    }
    case "value": {
      const price = valuePrice(rule, body[rule.field]);
      return price ?? null;
    }
    case "tokens": {
      const { input, output } = estimatedTokens(body);
      return (input * rule.input + output * rule.output) / 1000;
    }
    default: {
      const never: never = rule;
      throw new Error(`unknown price rule ${JSON.stringify(never)}`);
    }
  }
}

/** The price of a field's value: written as is, or in another case (`1k` for `1K`). */
export function valuePrice(
  rule: Extract<PriceRule, { per: "value" }>,
  value: unknown,
): number | undefined {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
    return undefined;
  const text = String(value);
  if (Object.hasOwn(rule.prices, text)) return rule.prices[text];
  const key = Object.keys(rule.prices).find((k) => k.toLowerCase() === text.toLowerCase());
  return key === undefined ? undefined : rule.prices[key];
}

const MAX_OUTPUT_FIELDS = ["max_tokens", "max_completion_tokens", "max_output_tokens"];

/**
 * The tokens a text request is estimated at before the call: its text (every string but the
 * model id, links and Data URIs) at 4 characters a token, rounded up; and its maximum output
 * (`max_tokens`, `max_completion_tokens`, `max_output_tokens`, `generationConfig.maxOutputTokens`),
 * or 1,000 when it sets none.
 */
export function estimatedTokens(body: RequestBody): { input: number; output: number } {
  const { model: _model, ...rest } = body;
  const input = Math.ceil(textLength(rest) / CHARS_PER_TOKEN);
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const max = [...MAX_OUTPUT_FIELDS.map((field) => body[field]), config.maxOutputTokens].find(
    (value): value is number => typeof value === "number" && value > 0,
  );
  return { input, output: max ?? DEFAULT_OUTPUT_TOKENS };
}

function textLength(value: unknown): number {
  if (typeof value === "string") return /^(data:|https?:\/\/)/.test(value) ? 0 : value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + textLength(item), 0);
  if (isRecord(value))
    return Object.values(value).reduce((sum: number, item) => sum + textLength(item), 0);
  return 0;
}

/**
 * What a text answer cost by the tokens the gateway reported (chat and responses
 * `prompt_tokens`/`completion_tokens`, messages `input_tokens`/`output_tokens`, native
 * `promptTokenCount`/`candidatesTokenCount` plus `thoughtsTokenCount`); null without a
 * per-token price or a usage that says both.
 */
export function usageCost(rule: PriceRule | undefined, usage: unknown): number | null {
  if (rule?.per !== "tokens" || !isRecord(usage)) return null;
  const count = (...fields: string[]) => {
    const values = fields.map((field) => usage[field]).filter((v) => typeof v === "number");
    return values.length === 0 ? undefined : (values as number[]).reduce((a, b) => a + b, 0);
  };
  const input = count("prompt_tokens") ?? count("input_tokens") ?? count("promptTokenCount");
  const output =
    count("completion_tokens") ??
    count("output_tokens") ??
    count("candidatesTokenCount", "thoughtsTokenCount");
  if (input === undefined || output === undefined) return null;
  return roundMoney((input * rule.input + output * rule.output) / 1000);
}
