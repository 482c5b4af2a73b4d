import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";
import { ROOT } from "../../../helpers/root.js";

/**
 * No input reaches an internal error: a value of the wrong type at any position the
 * manifest's JSON Schema describes, or a request field's of each model family, is a located
 * error (exit 2, at the value's line), never a crash. The positions are read from
 * `schemas/`, so a key added to a schema is tried here without a word more.
 */

type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

type Step = string | number;

interface Position {
  path: Step[];
  wrong: unknown;
}

/** Values of each JSON type, tried in order until one the position does not take. */
const WRONG: [string, unknown][] = [
  ["string", "wrong-typed"],
  ["number", 12.5],
  ["boolean", true],
  ["object", { wrong: 1 }],
  ["array", [1]],
];

/** The JSON types a schema takes; empty when it takes anything. */
function typesOf(schema: Schema): Set<string> {
  if (schema.type !== undefined)
    return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) {
    const all = alternatives.map(typesOf);
    return all.some((types) => types.size === 0) ? new Set() : new Set(all.flatMap((t) => [...t]));
  }
  const values = schema.const !== undefined ? [schema.const] : (schema.enum ?? []);
  return new Set(values.map((value) => (Array.isArray(value) ? "array" : typeof value)));
}

function takes(types: Set<string>, type: string, value: unknown): boolean {
  if (types.has(type)) return true;
  return type === "number" && types.has("integer") && Number.isInteger(value);
}

/** Every position of `schema` with a value of a type it does not take. */
function positions(schema: Schema, at: Step[] = []): Position[] {
  const found: Position[] = [];
  const types = typesOf(schema);
  const wrong = WRONG.find(([type, value]) => !takes(types, type, value));
  if (at.length > 0 && types.size > 0 && wrong !== undefined)
    found.push({ path: at, wrong: wrong[1] });
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    found.push(...positions(child, [...at, key]));
  if (schema.items !== undefined) found.push(...positions(schema.items, [...at, 0]));
  if (typeof schema.additionalProperties === "object")
    found.push(...positions(schema.additionalProperties, [...at, "style"]));
  // Positions inside each alternative; the alternatives' own place is the one above.
  for (const alternative of schema.anyOf ?? schema.oneOf ?? [])
    for (const inner of positions(alternative, at))
      if (inner.path.length > at.length) found.push(inner);
  return found;
}

const MARK = "__WRONG_VALUE__";
const MADE = "__MADE__";

const BASE = { version: 1, jobs: [{ id: "hero", model: "acme-image-2", prompt: "a mug" }] };

/**
 * A valid manifest with `wrong` at `path` (its containers made where missing), and the lines
 * a refusal may point at: the value's, or the first container made for it (a union whose
 * other keys are missing is refused there).
 */
function manifestWith(
  { path: at, wrong }: Position,
  base: Record<string, unknown> = BASE,
): { text: string; lines: [number, number] } {
  const root = structuredClone(base) as Record<Step, unknown>;
  let node = root;
  let made: { node: Record<Step, unknown>; step: Step } | undefined;
  at.forEach((step, index) => {
    if (index === at.length - 1) {
      node[step] = MARK;
      return;
    }
    const existing = node[step];
    if (typeof existing !== "object" || existing === null) {
      node[step] = typeof at[index + 1] === "number" ? [] : {};
      made ??= { node, step };
    }
    node = node[step] as Record<Step, unknown>;
  });
  // The first container made is found by a name of its own, then given its own back.
  if (made !== undefined && typeof made.step === "string") {
    made.node[`${MADE}${made.step}`] = made.node[made.step];
    delete made.node[made.step];
  }
  const lines = JSON.stringify(root, null, 2).split("\n");
  const value = lines.findIndex((line) => line.includes(MARK)) + 1;
  const first = lines.findIndex((line) => line.includes(MADE)) + 1;
  const text = lines
    .join("\n")
    .replace(`"${MARK}"`, JSON.stringify(wrong))
    .replace(`"${MADE}`, '"');
  return { text: `${text}\n`, lines: [first > 0 ? first : value, value] };
}

function schemaOf(name: string): Schema {
  return JSON.parse(readFileSync(path.join(ROOT, "schemas", `${name}.schema.json`), "utf8"));
}

const ALL = positions(schemaOf("manifest"));

/**
 * Each family's request fields, as fields of the first job of its example manifest
 * (`manifests/families/<family>.yaml`), that job alone.
 */
const FAMILY_POSITIONS = readdirSync(path.join(ROOT, "manifests/families")).flatMap((file) => {
  const family = file.replace(/\.yaml$/, "");
  const example = jsYaml.load(
    readFileSync(path.join(ROOT, "manifests/families", file), "utf8"),
  ) as { jobs: Record<string, unknown>[]; vars?: unknown; gateway?: unknown };
  // The job alone: a matrix would set the fields it names whatever the job says.
  const { matrix: _matrix, ...job } = example.jobs[0] as Record<string, unknown>;
  const base = { version: 1, vars: example.vars ?? {}, jobs: [job] };
  const fields = positions(schemaOf(family)).filter((position) => position.path[0] !== "model");
  return fields.map((position) => ({
    family,
    base,
    position: { ...position, path: ["jobs", 0, ...position.path] },
  }));
});

/** Runs `gwrun validate` on each case; returns those not refused at their value's line. */
async function unlocatedOf(
  cases: readonly { position: Position; base?: Record<string, unknown> }[],
): Promise<string[]> {
  const dir = tempDir();
  const file = path.join(dir, "m.yaml");
  const unlocated: string[] = [];
  for (const { position, base } of cases) {
    const { text, lines } = manifestWith(position, base);
    writeFileSync(file, text);
    const result = await gwrun(["validate", file]);
    const at = `${position.path.join(".")} = ${JSON.stringify(position.wrong)}`;
    const located = [...result.stderr.matchAll(/m\.yaml:(\d+):\d+ {2}error /g)].some(
      ([, line]) => Number(line) >= lines[0] && Number(line) <= lines[1],
    );
    if (result.code !== 2 || !located)
      unlocated.push(`${at} (lines ${lines.join("–")}): exit ${result.code}\n${result.stderr}`);
    expect(result.stderr, at).not.toMatch(/internal error/);
  }
  return unlocated;
}

describe("a wrong-typed value anywhere in a manifest", () => {
  it("finds every position of the schema", () => {
    const names = ALL.map((position) => position.path.join("."));
    expect(names).toContain("limits.max_cost");
    expect(names).toContain("checks.judge.pass");
    expect(names).toContain("jobs.0.checks.judge.pass.starts_with");
    expect(names).toContain("notify.0.on.0");
    expect(ALL.length).toBeGreaterThan(100);
  });

  it("is a located error at its line, exit 2, at every position", async () => {
    expect(await unlocatedOf(ALL.map((position) => ({ position })))).toEqual([]);
  });

  it("is a located error at its line in every request field of every model family", async () => {
    expect(new Set(FAMILY_POSITIONS.map((entry) => entry.family)).size).toBe(20);
    expect(await unlocatedOf(FAMILY_POSITIONS)).toEqual([]);
  });
});

describe("expansions are bounded before they are walked", () => {
  const validate = async (text: string) => {
    const file = path.join(tempDir(), "m.yaml");
    writeFileSync(file, text);
    return gwrun(["validate", file]);
  };
  const JOB = "jobs:\n  - { id: hero, model: acme-image-2, prompt: 'a {{bomb}}' }\n";

  it("aliases of aliases: nine levels of nine are a located error", async () => {
    const levels = ["x-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let level = 1; level <= 8; level++)
      levels.push(
        `x-a${level}: &a${level} [${Array(9)
          .fill(`*a${level - 1}`)
          .join(", ")}]`,
      );
    const result = await validate(`version: 1\n${levels.join("\n")}\nvars:\n  bomb: *a8\n${JOB}`);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /m\.yaml:\d+:\d+ {2}error vars\.bomb\S* expands to more than 1,000,000 values/,
    );
  });

  it("vars naming vars nine times over, and a matrix past max_tasks, are located errors", async () => {
    const chain = ["  v0: lol"];
    for (let level = 1; level <= 11; level++)
      chain.push(`  v${level}: "${`{{v${level - 1}}}`.repeat(9)}"`);
    const vars = await validate(
      `version: 1\nvars:\n${chain.join("\n")}\n  bomb: "{{v11}}"\n${JOB}`,
    );
    expect(vars.code).toBe(2);
    expect(vars.stderr).toMatch(/error \{\{\w+\}\} would grow to [\d,]+ characters/);
    const values = `[${Array.from({ length: 2000 }, (_, i) => i).join(", ")}]`;
    const matrix = await validate(`version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: "{{a}} {{b}} {{c}}", matrix: { a: ${values}, b: ${values}, c: ${values} } }
`);
    expect(matrix.code).toBe(2);
    expect(matrix.stderr).toMatch(/error hero expands to 8,000,000,000 tasks/);
  });
});
