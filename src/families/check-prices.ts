import { suggest } from "../core/suggest.js";
import {
  type Diagnostic,
  type ExpandedManifest,
  framed,
  jobPath,
  type PriceRule,
  type Reporter,
} from "../manifest/index.js";
import type { CheckedJob } from "./check-jobs.js";
import { ruleFor, valuePrice } from "./prices.js";
import { familyFields, familyFor, suggestModel } from "./resolve.js";

/**
 * The `prices:` table against the contract and the manifest's jobs: each model known (a
 * family's, or a text model the manifest calls, or any model priced per token, which only text
 * models are), each rule fit for its family's outputs, a `by` field one the family has, and
 * every job's value of that field priced. Problems are located in the table (in the manifest or
 * its shared file), or at the job whose value has no price.
 */
export function checkPrices(manifest: ExpandedManifest, jobs: readonly CheckedJob[]): Diagnostic[] {
  const check = new PriceCheck(manifest, manifest.reporter);
  for (const checked of jobs) check.add(checked);
  return check.finish();
}

/**
 * `checkPrices` fed one checked expansion at a time: each value is checked as it comes, and the
 * models called are kept for the table. A job's problems go to `reporter`.
 */
export class PriceCheck {
  readonly #manifest: ExpandedManifest;
  readonly #jobStart: number;
  // Text models the manifest calls (its text jobs', and its judges'), and every model used.
  readonly #textModels = new Set<string>();
  readonly #used = new Set<string>();

  constructor(manifest: ExpandedManifest, reporter: Reporter) {
    this.#manifest = { ...manifest, reporter };
    this.#jobStart = reporter.diagnostics.length;
  }

  add(checked: CheckedJob): void {
    const model = String(checked.body.model);
    if (checked.family?.lane === "text") this.#textModels.add(model);
    this.#used.add(model);
    checkJobValue(this.#manifest, checked);
  }

  finish(): Diagnostic[] {
    const manifest = this.#manifest;
    const jobFound = manifest.reporter.diagnostics.slice(this.#jobStart);
    const { table, reporter, base } = manifest.prices;
    const start = reporter.diagnostics.length;
    const judges = [
      manifest.settings?.checks?.judge,
      ...manifest.specs.map((spec) => spec.checks?.judge),
    ];
    const textModels = new Set([
      ...this.#textModels,
      ...judges.flatMap((judge) => (judge === undefined ? [] : [judge.model])),
    ]);
    const used = [...this.#used];
    for (const [model, rule] of Object.entries(table)) {
      const at = [...base, model];
      const family = familyFor(model, undefined);
      if (family === undefined) {
        if (rule.per === "tokens" || textModels.has(model)) continue;
        const near = suggest(model, used) ?? suggestModel(model);
        const hint = near === undefined ? "" : ` (did you mean "${near}"?)`;
        reporter.at(at, "unknown-model", `prices: unknown model "${model}"${hint}`, { key: true });
        continue;
      }
      const unfit = unfitRule(rule, family.lane, family.title);
      if (unfit !== undefined) {
        reporter.at(at, "price", `prices: ${model}: ${unfit}`);
        continue;
      }
      if (rule.per === "value" && !familyFields(family).has(rule.field)) {
        const near = suggest(rule.field, [...familyFields(family)]);
        const hint = near === undefined ? "" : ` (did you mean "${near}"?)`;
        reporter.at(
          [...at, "by"],
          "unknown-field",
          `prices: ${model} is priced by "${rule.field}", which is not a request field of ${family.title}${hint}`,
        );
      }
    }
    const found = reporter.diagnostics.slice(start);
    // The table's problems first, then the jobs' (as the table is read before the jobs).
    return reporter.source === manifest.source
      ? [...found, ...jobFound]
      : [...framed(found, reporter.source.text), ...jobFound];
  }
}

function unfitRule(rule: PriceRule, lane: string, title: string): string | undefined {
  if (rule.per === "tokens") return `per-token prices are for text models; this is ${title}`;
  if (rule.per === "image" && lane !== "image")
    return `per_image prices image models; this is ${title} (per_second prices clips)`;
  if (rule.per === "second" && lane !== "video")
    return `per_second prices video models; this is ${title} (per_image prices images)`;
  return undefined;
}

/** A job priced by one of its fields: the value it sends has a price. */
function checkJobValue(manifest: ExpandedManifest, checked: CheckedJob): void {
  const rule = ruleFor(manifest.prices.table, checked.body);
  if (rule?.per !== "value" || checked.family === undefined) return;
  if (!familyFields(checked.family).has(rule.field)) return;
  const { job } = checked;
  const value = checked.body[rule.field];
  if (valuePrice(rule, value) !== undefined) return;
  const model = String(checked.body.model);
  const priced = Object.keys(rule.prices).join(", ");
  const fromMatrix = job.matrixIndex[rule.field];
  const path =
    value === undefined
      ? ["model"]
      : fromMatrix === undefined
        ? [rule.field]
        : ["matrix", rule.field, fromMatrix];
  const message =
    value === undefined
      ? `${model} is priced by ${rule.field} (${priced}), which job "${job.spec.id}" does not set: set ${rule.field} in the job so its price is known`
      : `prices: ${model} has no price for ${rule.field} ${JSON.stringify(value)} (priced: ${priced})`;
  manifest.reporter.at(path, "price", message, {}, jobPath(job.spec));
}
