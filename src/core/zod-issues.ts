import type * as z from "zod";
import { didYouMean } from "./suggest.js";

/** One broken rule: where (a path into the validated value), which rule, and what to do. */
export interface Issue {
  path: (string | number)[];
  rule: string;
  message: string;
  /** Advice rather than a rule: shown, but the value is still accepted. */
  severity?: "warning";
}

/**
 * Turns zod issues into issues a person can act on: stable rule names (required, type,
 * json-number, enum, range, count, length, unknown-field, format, or a custom rule's own
 * name), one issue per unknown key with a did-you-mean, and values quoted in the message.
 */
export function describeZodIssues(
  schema: z.ZodType,
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
): Issue[] {
  return issues.flatMap((issue) => describeIssue(schema, value, issue));
}

type Path = (string | number)[];

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function toPath(path: readonly PropertyKey[]): Path {
  return path.map((key) => (typeof key === "number" ? key : String(key)));
}

function describeIssue(schema: z.ZodType, body: unknown, issue: z.core.$ZodIssue): Issue[] {
  const path = toPath(issue.path);
  const value = valueAt(body, issue.path);
  switch (issue.code) {
    case "invalid_type":
      return [typeIssue(path, value, issue)];
    case "invalid_value":
      return [oneOf(path, value, issue.values)];
    case "unrecognized_keys": {
      const known = knownKeysAt(schema, issue.path);
      return issue.keys.map((key) => ({
        path: [...path, key],
        rule: "unknown-field",
        message: `unknown field${didYouMean(key, known)}`,
      }));
    }
    case "too_big":
    case "too_small":
      return [sizeIssue(path, value, issue)];
    case "invalid_format":
      // A pattern's own message says what it wants; other formats are named by zod.
      return [
        {
          path,
          rule: "format",
          message:
            issue.format === "regex" && !issue.message.startsWith("Invalid")
              ? issue.message
              : `must be a valid ${issue.format}`,
        },
      ];
    case "invalid_union":
      return unionIssues(schema, body, issue);
    case "custom":
      return [customIssue(path, value, issue)];
    default:
      return [{ path, rule: issue.code, message: issue.message }];
  }
}

/** A value of the wrong type: missing, a number written as a quoted string, or another type. */
function typeIssue(path: Path, value: unknown, issue: z.core.$ZodIssueInvalidType): Issue {
  if (value === undefined) {
    return { path, rule: "required", message: "is required" };
  }
  const expected = issue.expected === "int" ? "integer" : issue.expected;
  if ((expected === "number" || expected === "integer") && typeof value === "string") {
    const quoted = value.trim() !== "" && Number.isFinite(Number(value));
    if (quoted) {
      return {
        path,
        rule: "json-number",
        message: `must be a JSON number, not the quoted string "${value}" (write ${value} without quotes)`,
      };
    }
  }
  return { path, rule: "type", message: `must be ${article(expected)}, got ${describe(value)}` };
}

/** A value out of bounds: an array's item count, a string's length, or a number's range. */
function sizeIssue(
  path: Path,
  value: unknown,
  issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall,
): Issue {
  const bound = issue.code === "too_big" ? "at most" : "at least";
  const limit = Number(issue.code === "too_big" ? issue.maximum : issue.minimum);
  const inclusive = issue.inclusive !== false;
  const comparison = inclusive ? bound : issue.code === "too_big" ? "below" : "above";
  if (issue.origin === "array" || issue.origin === "set") {
    const count = Array.isArray(value) ? value.length : "?";
    return { path, rule: "count", message: `must have ${comparison} ${limit} items, got ${count}` };
  }
  if (issue.origin === "string") {
    const length = typeof value === "string" ? value.length : "?";
    return {
      path,
      rule: "length",
      message: `must be ${comparison} ${limit} characters, got ${length}`,
    };
  }
  return { path, rule: "range", message: `must be ${comparison} ${limit}, got ${describe(value)}` };
}

/** A value matching no alternative of a union: the allowed values, or the closest one's issues. */
function unionIssues(
  schema: z.ZodType,
  body: unknown,
  issue: z.core.$ZodIssueInvalidUnion,
): Issue[] {
  const path = toPath(issue.path);
  const value = valueAt(body, issue.path);
  const values = unionValues(issue);
  if (values !== undefined) return [oneOf(path, value, values)];
  // The value has the shape of an alternative whose insides are wrong: those, where they are.
  const closest = closestAlternative(issue.errors);
  if (closest !== undefined)
    return closest.flatMap((inner) =>
      describeIssue(schema, body, { ...inner, path: [...issue.path, ...inner.path] }),
    );
  return [{ path, rule: "type", message: `has an unsupported shape: ${describe(value)}` }];
}

/** A refinement's issue: its own rule and message, with what was got and what is near. */
function customIssue(path: Path, value: unknown, issue: z.core.$ZodIssueCustom): Issue {
  const params = issue.params as
    | { rule?: string; severity?: "warning"; values?: readonly number[] }
    | undefined;
  const rule = params?.rule ?? "rule";
  // A refinement's own message states the rule; an enum or range also says what it got.
  const got =
    (rule === "enum" || rule === "range") && !issue.message.includes("got")
      ? `, got ${describe(value)}`
      : "";
  // An amount among allowed amounts gets the ones either side of it (7 → 6 or 10).
  const near =
    params?.values !== undefined && typeof value === "number"
      ? didYouMean(String(value), params.values.map(String), (candidate) => candidate)
      : "";
  const message = `${issue.message}${got}${near}`;
  return params?.severity === "warning"
    ? { path, rule, message, severity: "warning" }
    : { path, rule, message };
}

/** An enum issue: the allowed values, what was written, and the nearest allowed string. */
function oneOf(path: Path, value: unknown, values: readonly unknown[]): Issue {
  if (value === undefined) return { path, rule: "required", message: "is required" };
  const allowed = values.map((v) => JSON.stringify(v)).join(", ");
  // A number among numbers gets the allowed ones either side of it (7 → 5 or 10).
  const numbers = typeof value === "number" && values.every((v) => typeof v === "number");
  const hint =
    typeof value === "string"
      ? didYouMean(value, values.map(String))
      : numbers
        ? didYouMean(String(value), values.map(String), (candidate) => candidate)
        : "";
  return {
    path,
    rule: "enum",
    message: `must be one of ${allowed}, got ${describe(value)}${hint}`,
  };
}

/**
 * Of a union's alternatives, the one the value's own shape matches (every broken rule lies
 * inside it, none at its top), with the fewest broken rules; undefined when none matches.
 */
function closestAlternative(
  alternatives: readonly (readonly z.core.$ZodIssue[])[],
): readonly z.core.$ZodIssue[] | undefined {
  return alternatives
    .filter((issues) => issues.length > 0 && issues.every((inner) => inner.path.length > 0))
    .reduce<readonly z.core.$ZodIssue[] | undefined>(
      (best, issues) => (best === undefined || issues.length < best.length ? issues : best),
      undefined,
    );
}

/**
 * The values a union of literals (or a discriminated union's tags) allows; undefined when some
 * option is more than a fixed value.
 */
function unionValues(issue: z.core.$ZodIssueInvalidUnion): unknown[] | undefined {
  const tagged = issue as { note?: string; options?: unknown[] };
  if (issue.errors.length === 0) return tagged.options;
  const values: unknown[] = [];
  for (const option of issue.errors) {
    const [only] = option;
    if (option.length !== 1 || only?.code !== "invalid_value" || only.path.length > 0) return;
    values.push(...only.values);
  }
  return values;
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** A short description of a value for messages: strings quoted, long values cut. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    const cut = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(cut);
  }
  return String(value);
}

/** The field names an object schema defines at `path`, for did-you-mean suggestions. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const key of path) {
    current = unwrap(current);
    const def = defOf(current);
    if (def?.type === "object") current = (def.shape as Record<string, unknown>)[String(key)];
    else if (def?.type === "array") current = def.element;
    else return [];
  }
  const def = defOf(unwrap(current));
  return def?.type === "object" ? Object.keys(def.shape as object) : [];
}

interface SchemaDef {
  type: string;
  shape?: unknown;
  element?: unknown;
  innerType?: unknown;
  in?: unknown;
  options?: unknown[];
}

function defOf(schema: unknown): SchemaDef | undefined {
  return (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
}

function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = defOf(current);
    if (def === undefined) return current;
    if (def.innerType !== undefined) current = def.innerType;
    else if (def.type === "pipe") current = def.in;
    else return current;
  }
  return current;
}
