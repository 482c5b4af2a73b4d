import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ExitCode } from "../api/index.js";
import { GwError } from "../core/errors.js";
import { resolveFromCwd } from "../core/io.js";
import {
  FAMILIES,
  type Family,
  type FamilyReference,
  type FieldReference,
  familyFor,
  familyReference,
  suggestModel,
} from "../families/index.js";
import { out } from "./output.js";

/** The command that writes docs/families.md; named in the file and by the test that keeps it fresh. */
export const FAMILIES_DOC_COMMAND = "gwrun fields --markdown docs/families.md";

export interface FieldsFlags {
  json?: boolean;
  markdown?: string;
}

/**
 * `gwrun fields [model] [--json] [--markdown FILE]`: the request fields of the family of `model`
 * (a model id, a family id such as image-b, or a text endpoint word such as chat), or of every family.
 */
export async function printFields(name: string | undefined, flags: FieldsFlags): Promise<ExitCode> {
  const references = selectFamilies(name).map(familyReference);
  if (flags.markdown !== undefined) {
    const file = resolveFromCwd(flags.markdown);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, renderFieldsMarkdown(references));
    out(flags.markdown);
  } else if (flags.json === true) {
    out(JSON.stringify(references, null, 2));
  } else {
    out(renderFieldsText(references));
  }
  return ExitCode.Ok;
}

function selectFamilies(name: string | undefined): readonly Family[] {
  if (name === undefined) return FAMILIES;
  const family =
    FAMILIES.find((candidate) => candidate.id === name) ??
    familyFor(undefined, name) ??
    familyFor(name, undefined);
  if (family !== undefined) return [family];
  // The same did-you-mean as validation gives an unknown model.
  const suggestion = suggestModel(name);
  const hint = suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
  throw new GwError("GW_USAGE", `unknown model "${name}"${hint}`, {
    hint: "gwrun fields without a model lists every family; text families go by chat, responses, messages or native",
  });
}

const MODELS_NOTE = "acme stands for the vendor word";
const TEXT_MODELS = "any model id";

const valuesOf = (field: FieldReference) =>
  field.values?.map((value) => JSON.stringify(value)).join(", ") ?? "";
const defaultOf = (field: FieldReference) =>
  field.default === undefined ? "" : JSON.stringify(field.default);
const modelsOf = (family: FamilyReference) =>
  family.models.length === 0 ? TEXT_MODELS : family.models.join(", ");

/** Plain text for a terminal: one block per family, one aligned line per field. */
export function renderFieldsText(references: readonly FamilyReference[]): string {
  return references
    .map((family) => {
      const rows = family.fields.map((field) => [
        field.name,
        field.type,
        field.required ? "yes" : "no",
        [
          field.values === undefined ? "" : `one of ${valuesOf(field)}`,
          field.default === undefined ? "" : `default ${defaultOf(field)}`,
          ...field.rules,
        ]
          .filter((part) => part !== "")
          .join("; "),
      ]);
      const header = ["field", "type", "required", "values, default and rules"];
      const widths = [0, 1, 2].map((column) =>
        Math.max(...[header, ...rows].map((row) => (row[column] as string).length)),
      );
      const line = (row: string[]) =>
        `  ${row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column] as number) : cell)).join("  ")}`.trimEnd();
      return [
        `${family.title} (${family.id}), ${family.lane} lane`,
        `endpoint: ${family.endpoint}`,
        `models: ${modelsOf(family)}${family.models.length === 0 ? "" : ` (${MODELS_NOTE})`}`,
        "",
        line(header),
        ...rows.map(line),
      ].join("\n");
    })
    .join("\n\n");
}

const cell = (text: string) => text.replaceAll("|", "\\|");
// Rules hold <brand> and regular expressions, which Markdown would read as HTML and emphasis.
const escapeMarkdown = (text: string) => text.replace(/[\\`*_<>[\]|]/g, "\\$&");
const code = (text: string) => (text === "" ? "" : `\`${text}\``);

/** docs/families.md: one section per family with the same content as a table. */
export function renderFieldsMarkdown(references: readonly FamilyReference[]): string {
  const sections = references.map((family) => {
    const rows = family.fields.map(
      (field) =>
        `| ${[
          code(field.name),
          cell(code(field.type)),
          field.required ? "yes" : "no",
          cell(field.values?.map((value) => code(JSON.stringify(value))).join(", ") ?? ""),
          cell(code(defaultOf(field))),
          escapeMarkdown(field.rules.join("; ")),
        ].join(" | ")} |`,
    );
    const models =
      family.models.length === 0
        ? TEXT_MODELS
        : `${family.models.map((model) => code(model)).join(", ")} (${MODELS_NOTE})`;
    return [
      `## ${family.title} (\`${family.id}\`)`,
      "",
      `Endpoint \`${family.endpoint}\`, ${family.lane} lane. Models: ${models}.`,
      "",
      "| field | type | required | values | default | rules |",
      "|---|---|---|---|---|---|",
      ...rows,
    ].join("\n");
  });
  return `${[
    "# Model families: request fields",
    "",
    `Generated from the family schemas by \`${FAMILIES_DOC_COMMAND}\` (or \`npm run schema\`); do not edit by hand.`,
    "Values are case-sensitive, exactly as written. Rules that tie fields together (such as a",
    "field required only without another) are not listed: `gwrun validate` checks them.",
    "",
    ...sections.flatMap((section) => [section, ""]),
  ]
    .join("\n")
    .trimEnd()}\n`;
}
