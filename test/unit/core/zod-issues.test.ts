import { describe, expect, it } from "vitest";
import * as z from "zod";
import { describeZodIssues } from "../../../src/core/zod-issues.js";
import { intOneOf } from "../../../src/families/common.js";

function messagesOf(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return describeZodIssues(schema, value, result.error.issues).map(
    (issue) => `${issue.path.join(".")} ${issue.rule}: ${issue.message}`,
  );
}

describe("describeZodIssues", () => {
  it("an integer that must be one of a few values says what it got", () => {
    expect(messagesOf(z.object({ duration: intOneOf([6, 10]) }), { duration: 7 })).toEqual([
      "duration enum: must be one of 6, 10, got 7 (did you mean 6 or 10?)",
    ]);
  });

  it("a union of literals is an enum error that says what it got", () => {
    const schema = z.object({ n: z.union([z.literal(5), z.literal(10)]) });
    expect(messagesOf(schema, { n: 7 })).toEqual([
      "n enum: must be one of 5, 10, got 7 (did you mean 5 or 10?)",
    ]);
  });

  it("an unknown tag of a discriminated union is an enum error that says what it got", () => {
    const schema = z.object({
      tool: z.discriminatedUnion("type", [
        z.object({ type: z.literal("web") }),
        z.object({ type: z.literal("file") }),
      ]),
    });
    expect(messagesOf(schema, { tool: { type: "wbe" } })).toEqual([
      'tool.type enum: must be one of "web", "file", got "wbe" (did you mean "web"?)',
    ]);
  });

  it("a refinement's range rule gets what it got, unless its message says already", () => {
    const schema = z.object({
      a: z
        .number()
        .refine((v) => v % 2 === 0, { message: "must be even", params: { rule: "range" } }),
      b: z
        .number()
        .refine((v) => v !== 1, { message: "must not be 1, got 1", params: { rule: "range" } }),
    });
    expect(messagesOf(schema, { a: 3, b: 1 })).toEqual([
      "a range: must be even, got 3",
      "b range: must not be 1, got 1",
    ]);
  });

  it("keeps the messages that already say what they got", () => {
    const schema = z.object({ r: z.enum(["720p", "1080p"]), n: z.number().max(10) });
    expect(messagesOf(schema, { r: "4k", n: 12 })).toEqual([
      'r enum: must be one of "720p", "1080p", got "4k"',
      "n range: must be at most 10, got 12",
    ]);
  });
});
