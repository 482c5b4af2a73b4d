import path from "node:path";
import { shownFromCwd } from "../core/io.js";
import { suggest } from "../core/suggest.js";
import { isRecord } from "../core/values.js";
import { type Diagnostic, framedBy } from "./diagnostics.js";
import { parseManifest } from "./load.js";
import { Reporter } from "./report.js";
import type { PriceRule, PriceTable } from "./types.js";
import type { Path } from "./yaml-nodes.js";

/** A price table read, with where its entries are written (the manifest or a shared file). */
export interface LoadedPrices {
  table: PriceTable;
  /** Points at the table's text: the manifest's reporter, or the shared file's. */
  reporter: Reporter;
  /** Where the table starts under the reporter's root: `["prices"]`, or `[]` in its own file. */
  base: Path;
}

const PRICE_FORMS =
  "a number (per task), { per_image }, { per_second }, { by: <request field>, <value>: price, … } or { per_1k_input, per_1k_output }";
const FORM_KEYS = ["per_image", "per_second", "per_1k_input", "per_1k_output", "by"];

/**
 * Reads the manifest's `prices:` — a table, or `{ file: prices.yaml }` relative to the
 * manifest — into rules by model. Problems are reported at their text (in the shared file
 * for one read from there); entries with a problem are left out.
 */
export function readPrices(value: unknown, reporter: Reporter): LoadedPrices {
  const inline: LoadedPrices = { table: {}, reporter, base: ["prices"] };
  if (!isRecord(value)) return inline;
  if (!("file" in value)) return { ...inline, table: rulesOf(value, reporter, ["prices"]) };
  const file = value.file;
  if (typeof file !== "string" || file === "" || Object.keys(value).length > 1) {
    reporter.at(
      ["prices"],
      "prices-file",
      "prices: a shared file is named as { file: prices.yaml }",
    );
    return inline;
  }
  const full = path.resolve(reporter.source.dir, file);
  const read = reporter.source.readAside(file);
  if ("problem" in read) {
    reporter.at(["prices", "file"], "missing-file", `prices file: ${read.problem}`);
    return inline;
  }
  const { text } = read;
  const shown = shownFromCwd(full);
  // An empty shared file prices nothing (it is not an empty manifest).
  if (text.trim() === "") return inline;
  const source = parseManifest(text, shown);
  const own = new Reporter(source);
  reporter.diagnostics.push(...framed(source.diagnostics, text));
  if (source.value === undefined) return { ...inline, reporter: own, base: [] };
  if (!isRecord(source.value)) {
    own.at([], "prices", "a prices file is a mapping of model ids to prices");
    reporter.diagnostics.push(...framed(own.diagnostics.splice(0), text));
    return { table: {}, reporter: own, base: [] };
  }
  const table = rulesOf(source.value, own, []);
  reporter.diagnostics.push(...framed(own.diagnostics.splice(0), text));
  return { table, reporter: own, base: [] };
}

/** Diagnostics of the shared file, shown with its own text. */
export function framed(diagnostics: readonly Diagnostic[], text: string): Diagnostic[] {
  return diagnostics.map((diagnostic) => framedBy(diagnostic, text));
}

function rulesOf(value: Record<string, unknown>, reporter: Reporter, base: Path): PriceTable {
  const table: Record<string, PriceRule> = {};
  for (const [model, written] of Object.entries(value)) {
    const rule = ruleOf(written, reporter, [...base, model], model);
    if (rule !== undefined) table[model] = rule;
  }
  return table;
}

function ruleOf(
  value: unknown,
  reporter: Reporter,
  at: Path,
  model: string,
): PriceRule | undefined {
  const amountAt = (amount: unknown, where: Path): number | undefined => {
    if (typeof amount === "number" && Number.isFinite(amount) && amount >= 0) return amount;
    reporter.at(where, "price", `${model}: a price is a number of at least 0`);
    return undefined;
  };
  if (typeof value === "number") {
    const amount = amountAt(value, at);
    return amount === undefined ? undefined : { per: "task", amount };
  }
  if (!isRecord(value)) {
    reporter.at(at, "price", `${model}: a price is ${PRICE_FORMS}`);
    return undefined;
  }
  if ("by" in value) return valueRule(value, reporter, at, model, amountAt);
  const keys = Object.keys(value);
  for (const key of keys.filter((key) => !FORM_KEYS.includes(key))) {
    const near = suggest(key, FORM_KEYS);
    const hint = near === undefined ? `a price is ${PRICE_FORMS}` : `did you mean "${near}"?`;
    reporter.at([...at, key], "unknown-field", `${model}: unknown price field (${hint})`, {
      key: true,
    });
    return undefined;
  }
  const tokens = keys.includes("per_1k_input") || keys.includes("per_1k_output");
  if (keys.length === 1 && (keys[0] === "per_image" || keys[0] === "per_second")) {
    const amount = amountAt(value[keys[0]], [...at, keys[0]]);
    const per = keys[0] === "per_image" ? "image" : "second";
    return amount === undefined ? undefined : { per, amount };
  }
  if (tokens && keys.length === 2 && keys.every((key) => key.startsWith("per_1k_"))) {
    const input = amountAt(value.per_1k_input, [...at, "per_1k_input"]);
    const output = amountAt(value.per_1k_output, [...at, "per_1k_output"]);
    return input === undefined || output === undefined
      ? undefined
      : { per: "tokens", input, output };
  }
  const what = tokens
    ? "per-token prices need both per_1k_input and per_1k_output, and nothing else"
    : `a price is ${PRICE_FORMS}`;
  reporter.at(at, "price", `${model}: ${what}`);
  return undefined;
}

function valueRule(
  value: Record<string, unknown>,
  reporter: Reporter,
  at: Path,
  model: string,
  amountAt: (amount: unknown, where: Path) => number | undefined,
): PriceRule | undefined {
  const { by: field, ...written } = value;
  if (typeof field !== "string" || field === "") {
    reporter.at(
      [...at, "by"],
      "price",
      `${model}: by names the request field the price depends on`,
    );
    return undefined;
  }
  if (Object.keys(written).length === 0) {
    reporter.at(
      at,
      "price",
      `${model}: a price by ${field} lists each value's price, e.g. 1k: 0.04`,
    );
    return undefined;
  }
  const prices: Record<string, number> = {};
  let whole = true;
  for (const [key, amount] of Object.entries(written)) {
    const checked = amountAt(amount, [...at, key]);
    if (checked === undefined) whole = false;
    else prices[key] = checked;
  }
  return whole ? { per: "value", field, prices } : undefined;
}
