import * as z from "zod";
import type { Family } from "./types.js";

/**
 * The field reference of a family, read from the JSON Schema that zod derives from its request
 * schema (the one `gwrun schema` publishes), so it cannot drift from what validation checks.
 * Cross-field rules (written as functions over the whole body) are not in it.
 */

/** The subset of JSON Schema that z.toJSONSchema writes for family schemas. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

export interface FieldReference {
  name: string;
  /** "string", "integer", "array of string", "object", "string | array of string", … */
  type: string;
  required: boolean;
  /** The accepted values, exactly as the schema writes them (case matters). */
  values?: unknown[];
  default?: unknown;
  /** Ranges, lengths, counts, formats and described rules, as short phrases. */
  rules: string[];
}

export interface FamilyReference {
  id: string;
  title: string;
  lane: string;
  endpoint: string;
  /** Model ids as examples with the vendor word `acme`, or the spec's label; empty for text. */
  models: string[];
  fields: FieldReference[];
}

/** The JSON Schema of a family's request body: what `gwrun schema` writes, without $id and title. */
export function requestJsonSchema(family: Family): JsonSchema & Record<string, unknown> {
  return z.toJSONSchema(family.schema, { unrepresentable: "any", io: "input" }) as JsonSchema &
    Record<string, unknown>;
}

/** Every request field of `family` with its type, values, default, whether required and rules. */
export function familyReference(family: Family): FamilyReference {
  const schema = requestJsonSchema(family);
  const required = new Set(schema.required ?? []);
  return {
    id: family.id,
    title: family.title,
    lane: family.lane,
    endpoint: family.endpoint,
    models: family.models.map((model) => model.label ?? model.example),
    fields: Object.entries(schema.properties ?? {}).map(([name, field]) => ({
      name,
      type: typeOf(field),
      required: required.has(name),
      ...(field.enum === undefined ? {} : { values: field.enum }),
      ...(field.default === undefined ? {} : { default: field.default }),
      rules: rulesOf(field, "", name),
    })),
  };
}

/** A compact type: arrays name their items, objects their fields (optional ones with "?"). */
function typeOf(schema: JsonSchema): string {
  if (schema.anyOf !== undefined) return [...new Set(schema.anyOf.map(typeOf))].join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  if (type === "array")
    return schema.items === undefined ? "array" : `array of ${typeOf(schema.items)}`;
  if (type === "object" && schema.properties !== undefined) {
    const required = new Set(schema.required ?? []);
    const names = Object.keys(schema.properties).map((name) =>
      required.has(name) ? name : `${name}?`,
    );
    return names.length === 0 ? "object" : `object {${names.join(", ")}}`;
  }
  return type ?? "any";
}

// zod writes an integer without bounds as ±MAX_SAFE_INTEGER: no rule worth stating.
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Rules of one schema as phrases. A nested rule names where it applies from the field down:
 * `bbox_list[][]` is each item of each item, `color_palette[].hex` a field of each item.
 */
function rulesOf(schema: JsonSchema, where: string, field: string): string[] {
  const at = (phrase: string) => (where === "" ? phrase : `${where}: ${phrase}`);
  const rules: string[] = [];
  const range = span(
    schema.minimum === -NO_LIMIT ? undefined : schema.minimum,
    schema.maximum === NO_LIMIT ? undefined : schema.maximum,
  );
  if (range !== undefined) rules.push(at(range));
  if (schema.exclusiveMinimum !== undefined) rules.push(at(`> ${schema.exclusiveMinimum}`));
  if (schema.exclusiveMaximum !== undefined) rules.push(at(`< ${schema.exclusiveMaximum}`));
  const length = span(schema.minLength, schema.maxLength, "character");
  if (length !== undefined) rules.push(at(length));
  const count = span(schema.minItems, schema.maxItems, "item");
  if (count !== undefined) rules.push(at(count));
  if (schema.pattern !== undefined) rules.push(at(`matches /${schema.pattern}/`));
  if (schema.format !== undefined) rules.push(at(`format ${schema.format}`));
  if (schema.description !== undefined) rules.push(at(schema.description));
  // Values of a top-level field are listed apart; nested ones are rules of their place.
  if (where !== "" && schema.enum !== undefined) {
    rules.push(at(`one of ${schema.enum.map((value) => JSON.stringify(value)).join(", ")}`));
  }
  if (where !== "" && schema.default !== undefined) {
    rules.push(at(`default ${JSON.stringify(schema.default)}`));
  }
  const path = where === "" ? field : where;
  if (schema.items !== undefined) rules.push(...rulesOf(schema.items, `${path}[]`, field));
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    rules.push(...rulesOf(property, `${path}.${name}`, field));
  }
  // A rule of one form applies at the same place; the type column names the forms.
  for (const option of schema.anyOf ?? []) rules.push(...rulesOf(option, where, field));
  return rules;
}

/** "1 to 12", "at least 1 item", "at most 9 items", "exactly 4 items"; undefined without bounds. */
function span(min: number | undefined, max: number | undefined, unit = ""): string | undefined {
  const count = (n: number) => (unit === "" ? `${n}` : `${n} ${unit}${n === 1 ? "" : "s"}`);
  if (min !== undefined && max !== undefined) {
    return min === max ? `exactly ${count(min)}` : `${min} to ${count(max)}`;
  }
  // No minimum length or count is worth saying.
  if (min !== undefined) return min === 0 && unit !== "" ? undefined : `at least ${count(min)}`;
  if (max !== undefined) return `at most ${count(max)}`;
  return undefined;
}
