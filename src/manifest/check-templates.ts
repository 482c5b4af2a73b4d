import { didYouMean } from "../core/suggest.js";
import { isRecord } from "../core/values.js";
import { templateNames } from "./interpolate.js";
import { jobPath } from "./job-path.js";
import type { Reporter } from "./report.js";
import { TEXT_ENDPOINTS } from "./schema.js";
import type { JobSpec } from "./types.js";

/** Names a `{{template}}` may use in a job with `from:`. */
export const INPUT_NAMES = ["input.url", "input.file", "input.text"];

/**
 * Every `{{name}}` must name a var, a matrix key, the run's `date` (and `tick` when
 * `scheduled`), or `input.*` in a job with `from:`.
 */
export function checkTemplates(
  specs: readonly JobSpec[],
  manifestVars: Record<string, unknown>,
  defaults: Record<string, unknown>,
  reporter: Reporter,
  scheduled: boolean,
): void {
  const vars = { date: true, ...(scheduled ? { tick: true } : {}), ...manifestVars };
  const matrixKeys = new Set(specs.flatMap((spec) => Object.keys(spec.matrix ?? {})));
  const defaultNames = [...Object.keys(vars), ...matrixKeys, ...INPUT_NAMES];
  walkStrings(defaults, ["defaults"], (text, path) => {
    checkNames(text, path, defaultNames, undefined, reporter);
  });
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  for (const spec of specs) {
    const names = [...Object.keys(vars), ...Object.keys(spec.matrix ?? {})];
    if (spec.from !== undefined) names.push(...INPUT_NAMES);
    walkStrings(spec.fields, [], (text, path) => {
      checkSingleBraces(text, path, spec, reporter);
      checkNames(text, path, names, spec, reporter);
      const upstream = spec.from === undefined ? undefined : byId.get(spec.from);
      if (upstream !== undefined) checkInputKind(text, path, spec, upstream, reporter);
    });
    walkStrings(spec.matrix ?? {}, ["matrix"], (text, path) =>
      checkNames(text, path, Object.keys(vars), spec, reporter),
    );
  }
}

function checkNames(
  text: string,
  path: (string | number)[],
  allowed: readonly string[],
  spec: JobSpec | undefined,
  reporter: Reporter,
): void {
  for (const { name, index } of templateNames(text)) {
    if (allowed.includes(name)) continue;
    const message =
      name === "tick"
        ? "{{tick}} names a schedule tick: only a manifest with schedule: has one (use {{date}})"
        : name.startsWith("input.")
          ? INPUT_NAMES.includes(name)
            ? `{{${name}}} is only available in a job with from:`
            : `{{${name}}} is not defined; an upstream output offers ${INPUT_NAMES.map((n) => `{{${n}}}`).join(", ")}`
          : `{{${name}}} is not defined in vars or the job's matrix${didYouMean(name, allowed)}`;
    reporter.at(
      path,
      "undefined-variable",
      message,
      { inner: index },
      spec === undefined ? [] : jobPath(spec),
    );
  }
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
