import * as z from "zod";
import { isUrl, numberAt, object, type Report, recordAt } from "./common.js";
import type { ExpectedOutputs, RequestBody } from "./types.js";

/**
 * Shapes shared by the four text families. `byKind` and `byType` stand in for zod unions: a
 * union that fails reports only "unsupported shape" at its root, while these check the value
 * with the one branch its JSON kind or its `type` tag selects and report that branch's issues
 * (a block's bad field, an array's count) at their own paths.
 */

/** Text endpoints accept any model id (the set grows), so `model` is only a non-empty string. */
export function anyModel() {
  return z.string().min(1);
}

/** An http(s) URL that is not an image (an MCP server). */
export function httpUrl() {
  return z
    .string()
    .refine(isUrl, { message: "must be an http(s) URL", params: { rule: "format" } })
    .meta({ description: "an http(s) URL" });
}

/** An object whose fields the spec does not show: any fields are accepted. */
export function anyObject() {
  return z.looseObject({});
}

type Kind = "string" | "number" | "boolean" | "array" | "object" | "null";

function kindOf(value: unknown): Kind | "undefined" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as Kind | "undefined";
}

/** The JSON Schema of each branch, so a schema export still describes the accepted shapes. */
function anyOf(branches: readonly z.ZodType[]) {
  return branches.map((branch) => {
    const { $schema: _, ...rest } = z.toJSONSchema(branch, { unrepresentable: "any", io: "input" });
    return rest;
  });
}

type Ctx = z.core.$RefinementCtx<unknown>;

function forward(schema: z.ZodType, value: unknown, ctx: Ctx): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  for (const issue of result.error.issues) ctx.addIssue({ ...issue } as z.core.$ZodRawIssue);
}

/** A value of one of several JSON kinds (e.g. a string or an array of blocks). */
export function byKind(branches: Partial<Record<Kind, z.ZodType>>) {
  const expected = Object.keys(branches).join(" or ");
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const kind = kindOf(value);
      const branch = kind === "undefined" ? undefined : branches[kind];
      if (branch === undefined) {
        ctx.addIssue({
          code: "invalid_type",
          expected,
          input: value,
          message: `must be ${expected}`,
        });
        return;
      }
      forward(branch, value, ctx);
    })
    .meta({ anyOf: anyOf(Object.values(branches)) });
}

/**
 * An object told apart by its `type` tag; `untagged` is the shape of objects without one (the
 * messages endpoint's custom tools).
 */
export function byType(options: Record<string, z.ZodType>, untagged?: z.ZodType) {
  const types = Object.keys(options);
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const record = recordAt(value);
      if (record === undefined) {
        const message = "must be an object";
        ctx.addIssue({ code: "invalid_type", expected: "object", input: value, message });
        return;
      }
      const type = record.type;
      if (type === undefined && untagged !== undefined) {
        forward(untagged, value, ctx);
      } else if (type === undefined) {
        const message = "is required";
        ctx.addIssue({ code: "invalid_type", expected: "string", path: ["type"], message });
      } else if (typeof type !== "string" || !Object.hasOwn(options, type)) {
        const message = `must be one of ${types.join(", ")}`;
        ctx.addIssue({
          code: "invalid_value",
          values: types,
          path: ["type"],
          input: type,
          message,
        });
      } else {
        forward(options[type] as z.ZodType, value, ctx);
      }
    })
    .meta({ anyOf: anyOf([...Object.values(options), ...(untagged ? [untagged] : [])]) });
}

/** `temperature` and `top_p`: the spec says to use one or the other. */
export function eitherTemperatureOrTopP(body: RequestBody, report: Report): void {
  if (numberAt(body, "temperature") !== undefined && numberAt(body, "top_p") !== undefined) {
    report(
      ["top_p"],
      "either-or",
      "the spec advises setting either temperature or top_p, not both",
      "warning",
    );
  }
}

/** A JSON Schema, which has many more keywords than the three the spec names. */
export const jsonSchema = z.looseObject({
  type: z.string().optional(),
  properties: z.looseObject({}).optional(),
  required: z.array(z.string()).optional(),
});

/** A function the model may call: its name, what it does and its parameters' JSON Schema. */
export const functionDeclaration = object({
  name: z.string(),
  description: z.string().optional(),
  parameters: jsonSchema.optional(),
});

const VENDOR_ONLY = "the vendor format's field, not in the contract's table (sent with a warning)";

/** A field of the vendor format that the contract's table does not list (see `vendorFields`). */
export function vendorOnly<T extends z.ZodType>(schema: T): T {
  return schema.meta({ description: VENDOR_ONLY });
}

/**
 * Fields the vendor format of an endpoint takes but the contract's table for it does not list
 * (function tools on chat and native): accepted, with a warning that the gateway may not pass
 * them on.
 */
export function vendorFields(fields: readonly string[]) {
  return (body: RequestBody, report: Report): void => {
    for (const field of fields) {
      if (body[field] === undefined) continue;
      report(
        [field],
        "vendor-field",
        "is not in the contract's table for this endpoint; it is sent as the vendor format has it",
        "warning",
      );
    }
  };
}

/** One synchronous answer per task. */
export function oneText(): ExpectedOutputs {
  return { kind: "text", count: 1, exact: true, sizes: null };
}
