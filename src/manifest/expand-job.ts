import { INPUT_PLACEHOLDERS } from "./input-placeholders.js";
import {
  hasTemplate,
  nestedVars,
  renderTemplates,
  type VarLookup,
  withFields,
} from "./interpolate.js";
import type { Reporter } from "./report.js";
import { reportAtRow } from "./rows.js";
import type { ExpandedJob, JobSpec } from "./types.js";

/** What expansion needs to know about models, injected by the caller (families come later). */
export interface ExpandOptions {
  /** Request fields the model (or text endpoint) accepts; undefined when not known. */
  fieldsFor(
    model: string | undefined,
    endpoint: string | undefined,
  ): ReadonlySet<string> | undefined;
  /** When the run is asked for, ms: picks a scheduled manifest's tick and `{{date}}`. */
  at: number;
  /** Leave `jobs` empty: the caller walks `expansions()` (and checks labels) itself. */
  lazy?: boolean;
}

const NO_MATRIX: Readonly<Record<string, number>> = Object.freeze({});

/** How many combinations a matrix has (1 without one). */
export function combinationCount(matrix: Record<string, unknown[]> | undefined): number {
  if (matrix === undefined) return 1;
  return Object.values(matrix).reduce((count, list) => count * list.length, 1);
}

/**
 * The `n`-th combination of a matrix as an index map, in the order the lists are written (the
 * last list varies fastest). Made one at a time: a million combinations are never held as a
 * list beside the tasks that use them.
 */
export function combinationAt(
  matrix: Record<string, unknown[]> | undefined,
  n: number,
): Readonly<Record<string, number>> {
  if (matrix === undefined) return NO_MATRIX;
  const keys = Object.keys(matrix);
  if (keys.length === 0) return NO_MATRIX;
  const index: Record<string, number> = {};
  for (const key of keys) index[key] = 0;
  let rest = n;
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k] as string;
    const length = (matrix[key] as unknown[]).length;
    index[key] = rest % length;
    rest = Math.floor(rest / length);
  }
  return index;
}

const NO_FIELDS: ReadonlySet<string> = new Set();

export interface ExpandContext {
  vars: ReadonlyMap<string, unknown>;
  tick: string | undefined;
  defaults: Record<string, unknown>;
  defaultsTemplated: boolean;
  /** Whether some var's value names other vars: then vars are read through `nestedVars`. */
  nested: boolean;
  options: ExpandOptions;
  reporter: Reporter;
}

const ROW_NAME = /\{\{\s*row\.([A-Za-z_][A-Za-z0-9_]*)/g;

/** The row fields a job's request and label read, each once. */
function rowFieldsRead(spec: JobSpec): string[] {
  if (spec.rows === undefined) return [];
  const text = JSON.stringify([spec.fields, spec.label ?? ""]);
  return [...new Set([...text.matchAll(ROW_NAME)].map((match) => match[1] as string))];
}

/**
 * A job's tasks but for repeats: each row (when it has `rows:`) × each matrix combination,
 * its request rendered. A row missing a field the job reads is reported at that row.
 */
export function expandSpec(spec: JobSpec, context: ExpandContext): ExpandedJob[] {
  return [...expansionsOf(spec, context)];
}

/** `expandSpec` one expansion at a time: a million of them are never held together. */
export function* expansionsOf(spec: JobSpec, context: ExpandContext): Generator<ExpandedJob> {
  const shared = sharedOf(spec, context);
  const rows = spec.rows;
  // A field no row has is the template check's error; one some rows lack is each row's.
  const columns = rows?.columns ?? [];
  const read = rowFieldsRead(spec).filter((field) => columns.includes(field));
  // A job without rows makes one pass with no row.
  const rowCount = rows === undefined ? 1 : rows.size;
  for (let rowIndex = 0; rowIndex < rowCount; rowIndex++) {
    // Made for this row's expansions and let go with them: a data file's rows are not held.
    const row = rows?.row(rowIndex);
    if (row !== undefined) {
      const lacking = read.filter((field) => !Object.hasOwn(row, field));
      // A file row lacks only what a picture or clip has: a stray file of a folder is left out.
      if (lacking.length > 0 && rows?.files !== undefined) {
        skipFileRow(context, spec, rowIndex, lacking);
        continue;
      }
      for (const field of lacking)
        reportAtRow(
          context.reporter,
          spec,
          rowIndex,
          field,
          "row-field",
          `this row has no field "${field}", which job "${spec.id}" reads as {{row.${field}}}`,
        );
      // An empty cell renders as nothing, which a prompt shows only once it is paid for.
      for (const field of read)
        if (row[field] === "")
          reportAtRow(
            context.reporter,
            spec,
            rowIndex,
            field,
            "row-empty",
            `this row's "${field}" is empty: {{row.${field}}} reads as nothing`,
            "warning",
          );
    }
    for (let combo = 0; combo < shared.combos; combo++)
      yield expansionAt(shared, row, rowIndex, combo);
  }
}

/** Tells that a file row makes no task: it is not the picture or clip the job reads it as. */
function skipFileRow(
  context: ExpandContext,
  spec: JobSpec,
  rowIndex: number,
  lacking: readonly string[],
): void {
  const file = spec.rows?.files?.name(spec.rows.record(rowIndex)) ?? "";
  const kind = lacking.includes("duration") ? "clip ffprobe can read" : "picture gwrun can read";
  reportAtRow(
    context.reporter,
    spec,
    rowIndex,
    lacking[0] as string,
    "not-media",
    `${file} is not a ${kind}, so it has no ${lacking.join(", ")}: it makes no task; a narrower files: pattern leaves it out`,
    "warning",
  );
}

/** What every expansion of one job shares, worked out once. */
interface SharedByJob {
  spec: JobSpec;
  context: ExpandContext;
  combos: number;
  expansions: number;
  /** The manifest's vars, with a dependant's `input.*` placeholders. */
  vars: ReadonlyMap<string, unknown>;
  /** `vars` as templates read them. */
  specVars: VarLookup;
  /** Whether the job's fields hold a template at all. */
  templated: boolean;
  lookupOf(map: ReadonlyMap<string, unknown>): VarLookup;
}

function sharedOf(spec: JobSpec, context: ExpandContext): SharedByJob {
  const combos = combinationCount(spec.matrix);
  const vars =
    spec.from === undefined
      ? context.vars
      : new Map([
          ...context.vars,
          ["input.url", INPUT_PLACEHOLDERS.url(spec.from)],
          ["input.file", INPUT_PLACEHOLDERS.file()],
          ["input.text", INPUT_PLACEHOLDERS.text(spec.from)],
        ]);
  const dotted = JSON.stringify([spec.fields, spec.label ?? ""]).includes(".");
  const lookupOf = (map: ReadonlyMap<string, unknown>): VarLookup => {
    const lookup = context.nested ? nestedVars(map) : map;
    return dotted ? withFields(lookup) : lookup;
  };
  return {
    spec,
    context,
    combos,
    expansions: combos * (spec.rows === undefined ? 1 : spec.rows.size),
    vars,
    specVars: lookupOf(vars),
    templated: hasTemplate(spec.fields),
    lookupOf,
  };
}

/** One expansion: a row (or none) × one matrix combination, its request rendered. */
function expansionAt(
  shared: SharedByJob,
  row: Record<string, unknown> | undefined,
  rowIndex: number,
  combo: number,
): ExpandedJob {
  const { spec, context, vars, specVars } = shared;
  const matrixIndex = combinationAt(spec.matrix, combo);
  const localVars = spec.matrix === undefined && row === undefined ? vars : new Map(vars);
  const matrixValues: Record<string, unknown> = {};
  for (const [key, index] of Object.entries(matrixIndex)) {
    const item = renderTemplates(spec.matrix?.[key]?.[index], specVars);
    matrixValues[key] = item;
    (localVars as Map<string, unknown>).set(key, item);
  }
  if (row !== undefined) (localVars as Map<string, unknown>).set("row", row);
  // A matrix value wins over a var of its name, also inside the values of other vars.
  const lookup = localVars === vars ? specVars : shared.lookupOf(localVars);
  const fields = shared.templated
    ? (renderTemplates(spec.fields, lookup) as Record<string, unknown>)
    : spec.fields;
  const job: ExpandedJob = {
    spec,
    expansion: rowIndex * shared.combos + combo,
    expansions: shared.expansions,
    matrixIndex,
    vars: row === undefined ? matrixValues : { ...matrixValues, row },
    row: row === undefined ? undefined : rowIndex,
    label: spec.label === undefined ? undefined : String(renderTemplates(spec.label, lookup)),
    // The common case: the body is the job's own fields, shared rather than copied.
    body: fields,
    fromDefaults: NO_FIELDS,
    tick: context.tick,
  };
  addDefaultsAndMatrix(job, context, matrixValues, lookup);
  return job;
}

/** The defaults and matrix values the model takes, into a body of the job's own. */
function addDefaultsAndMatrix(
  job: ExpandedJob,
  context: ExpandContext,
  matrixValues: Record<string, unknown>,
  lookup: VarLookup,
): void {
  const { defaults } = context;
  const fields = job.body;
  const model =
    typeof fields.model === "string" ? fields.model : (matrixValues.model as string | undefined);
  const accepted = job.spec.passthrough
    ? undefined
    : context.options.fieldsFor(model, job.spec.endpoint);
  const fromDefaults = new Set<string>();
  for (const key of Object.keys(defaults)) {
    if (accepted?.has(key) === true && !(key in fields) && !(key in matrixValues))
      fromDefaults.add(key);
  }
  const matrixFields = Object.keys(matrixValues).filter(
    (key) => accepted?.has(key) === true || key === "model",
  );
  if (fromDefaults.size === 0 && matrixFields.length === 0) return;
  const body: Record<string, unknown> = {};
  for (const key of fromDefaults) {
    body[key] = context.defaultsTemplated ? renderTemplates(defaults[key], lookup) : defaults[key];
  }
  Object.assign(body, fields);
  for (const key of matrixFields) body[key] = matrixValues[key];
  job.body = body;
  job.fromDefaults = fromDefaults;
}
