import { didYouMean } from "../core/suggest.js";
import { isRecord } from "../core/values.js";
import { type FieldScope, fieldProblem, whereProblem } from "./check-fields.js";
import { templateNames, unreadableTemplates } from "./interpolate.js";
import { jobPath } from "./job-path.js";
import type { Reporter } from "./report.js";
import { TEXT_ENDPOINTS } from "./schema.js";
import type { JobSpec } from "./types.js";
import { type ChainStart, VarChains } from "./var-chains.js";

/** Names a `{{template}}` may use in a job with `from:`. */
export const INPUT_NAMES = ["input.url", "input.file", "input.text"];

/**
 * Every `{{name}}` must name a var, a matrix key, the run's `date` (and `tick` when
 * `scheduled`), or `input.*` in a job with `from:`; a var that names other vars must lead to
 * values (see `VarChains`). Nothing in double braces may stand in a request after rendering.
 */
export function checkTemplates(
  specs: readonly JobSpec[],
  manifestVars: Record<string, unknown>,
  defaults: Record<string, unknown>,
  reporter: Reporter,
  scheduled: boolean,
): void {
  const vars = { date: true, ...(scheduled ? { tick: true } : {}), ...manifestVars };
  const chains = new VarChains(manifestVars, reporter, undefinedMessage);
  const moment = Object.keys(vars).filter((name) => !Object.hasOwn(manifestVars, name));
  const matrixKeys = new Set(specs.flatMap((spec) => Object.keys(spec.matrix ?? {})));
  const defaultNames = [...Object.keys(vars), ...matrixKeys, ...INPUT_NAMES];
  const defaultsStart = chainStart("defaults", [...moment, ...matrixKeys, ...INPUT_NAMES]);
  walkStrings(defaults, ["defaults"], (text, path) => {
    checkNames(text, path, defaultNames, undefined, reporter, chains, defaultsStart);
  });
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  for (const spec of specs) {
    const own = Object.keys(spec.matrix ?? {});
    const rows =
      spec.rows === undefined ? [] : ["row", ...spec.rows.columns.map((c) => `row.${c}`)];
    const names = [...Object.keys(vars), ...own, ...rows];
    const upstream = spec.from === undefined ? undefined : byId.get(spec.from);
    const scope: FieldScope = { spec, vars: manifestVars, upstream };
    if (spec.from !== undefined) names.push(...INPUT_NAMES);
    const inputs = spec.from === undefined ? [] : INPUT_NAMES;
    const start = chainStart(`job ${spec.id}`, [...moment, ...own, ...rows, ...inputs], own);
    walkStrings(spec.fields, [], (text, path) => {
      checkSingleBraces(text, path, spec, reporter);
      checkNames(text, path, names, spec, reporter, chains, start, scope);
      if (upstream !== undefined) checkInputKind(text, path, spec, upstream, reporter);
    });
    if (upstream !== undefined) {
      for (const name of Object.keys(spec.fromWhere ?? {})) {
        const problem = whereProblem(name, upstream);
        if (problem !== undefined)
          reporter.at(
            ["from", "where", name],
            "unknown-variable",
            problem,
            { key: true },
            jobPath(spec),
          );
      }
    }
    // A label names files: it reads the job's own values, not its upstream's outputs.
    if (spec.label !== undefined) {
      const own = names.filter((name) => !INPUT_NAMES.includes(name));
      checkNames(spec.label, ["label"], own, spec, reporter, chains, start, {
        ...scope,
        upstream: undefined,
      });
    }
    // Matrix values are rendered with the vars alone.
    const matrixStart = chainStart(`the matrix of job ${spec.id}`, [...moment, ...inputs]);
    walkStrings(spec.matrix ?? {}, ["matrix"], (text, path) =>
      checkNames(text, path, Object.keys(vars), spec, reporter, chains, matrixStart),
    );
  }
}

function chainStart(
  reader: string,
  defined: readonly string[],
  shadowing: readonly string[] = [],
): ChainStart {
  return { reader, defined: new Set(defined), shadowing: new Set(shadowing) };
}

function checkNames(
  text: string,
  path: (string | number)[],
  allowed: readonly string[],
  spec: JobSpec | undefined,
  reporter: Reporter,
  chains: VarChains,
  start: ChainStart,
  scope?: FieldScope,
): void {
  const base = spec === undefined ? [] : jobPath(spec);
  for (const { text: braced, index } of unreadableTemplates(text)) {
    reporter.at(
      path,
      "template-syntax",
      `${braced} is no name gwrun reads (letters, digits and _) and would be sent as written`,
      { inner: index },
      base,
    );
  }
  for (const { name, index } of templateNames(text)) {
    if (allowed.includes(name)) {
      chains.follow(name, start);
      continue;
    }
    const dotted = name.includes(".") && scope !== undefined && !INPUT_NAMES.includes(name);
    const [first = "", second] = name.split(".");
    const upstreamField = first === "input" && (second === "vars" || second === "row");
    const known = dotted && (allowed.includes(first) || first === "row" || upstreamField);
    const problem = known ? fieldProblem(name, scope) : undefined;
    if (known && problem === undefined) {
      chains.follow(first, start);
      continue;
    }
    reporter.at(
      path,
      problem === undefined ? "undefined-variable" : "undefined-field",
      problem ?? undefinedMessage(name, allowed),
      { inner: index },
      base,
    );
  }
}

/** Why `{{name}}` reads nothing where `defined` names are. */
function undefinedMessage(name: string, defined: readonly string[]): string {
  if (name === "tick")
    return "{{tick}} names a schedule tick: only a manifest with schedule: has one (use {{date}})";
  if (!name.startsWith("input."))
    return `{{${name}}} is not defined in vars or the job's matrix${didYouMean(name, defined)}`;
  return INPUT_NAMES.includes(name)
    ? `{{${name}}} is only available in a job with from:`
    : `{{${name}}} is not defined; an upstream output offers ${INPUT_NAMES.map((n) => `{{${n}}}`).join(", ")}, and its task's variables as {{input.vars.<name>}} and {{input.row.<field>}}`;
}

const OUTPUT_DIR_NAME = /(?<!\{)\{(date|tick)\}(?!\})/g;

/** `{date}` is output.dir's spelling; in a request field it would be sent as written. */
function checkSingleBraces(
  text: string,
  path: (string | number)[],
  spec: JobSpec,
  reporter: Reporter,
): void {
  if (!text.includes("{")) return;
  for (const match of text.matchAll(OUTPUT_DIR_NAME)) {
    const name = match[1] as string;
    reporter.at(
      path,
      "template-braces",
      `{${name}} would be sent as written: in job fields, write {{${name}}}`,
      { inner: match.index, severity: "warning" },
      jobPath(spec),
    );
  }
}

const isTextJob = (spec: JobSpec) =>
  (TEXT_ENDPOINTS as readonly (string | undefined)[]).includes(spec.endpoint);

/** A text job offers `{{input.text}}`; an image or video job `{{input.url}}` and `{{input.file}}`. */
function checkInputKind(
  text: string,
  path: (string | number)[],
  spec: JobSpec,
  upstream: JobSpec,
  reporter: Reporter,
): void {
  const fromText = isTextJob(upstream);
  for (const { name, index } of templateNames(text)) {
    const media = name === "input.url" || name === "input.file";
    if (fromText && media) {
      reporter.at(
        path,
        "input-kind",
        `{{${name}}} needs an image or clip, but "${upstream.id}" is a text job: use {{input.text}}`,
        { inner: index },
        jobPath(spec),
      );
    } else if (!fromText && name === "input.text") {
      reporter.at(
        path,
        "input-kind",
        `{{input.text}} needs a text answer, but "${upstream.id}" makes media files: use {{input.url}} or {{input.file}}`,
        { inner: index },
        jobPath(spec),
      );
    }
  }
}

/** Calls `visit` for every string in `value` that holds a brace; `path` is a shared stack. */
function walkStrings(
  value: unknown,
  path: (string | number)[],
  visit: (text: string, path: (string | number)[]) => void,
): void {
  if (typeof value === "string") {
    if (value.includes("{")) visit(value, [...path]);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walkStrings(value[i], path, visit);
      path.pop();
    }
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) {
      path.push(key);
      walkStrings(value[key], path, visit);
      path.pop();
    }
  }
}
