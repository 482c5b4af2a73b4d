import {
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { recordedFileRefusal } from "../core/file-gate.js";
import { sha256 as sha256Of } from "../core/hash.js";
import { hashFile } from "../core/output-files.js";
import { isBelow } from "../core/safe-files.js";
import { cellText } from "../core/text-filter.js";
import type { ReportRow, RunRow, Store } from "../store/index.js";
import { exportExtras } from "./export-extras.js";
import { outputProvenance } from "./provenance.js";
import { type ReviewRecord, reviewRecord } from "./review-record.js";
import { selectionId } from "./selection.js";

export const REVIEW_CSV = "review.csv";

const CSV_COLUMNS = [
  "file",
  "exported",
  "job",
  "label",
  "output",
  "take",
  "repeat",
  "vars",
  "decision",
  "note",
  "sha256",
  // A judge's verdict beside the person's decision: a suggestion, never what is exported.
  "judge",
  "judge_reason",
  // Last, so the columns before keep their places: yes/no for a job with `select:`, else empty.
  "selected",
  // Who decided: a shared viewer's reviewer, "agent" (`gwrun mcp`); empty: the person at the viewer.
  "reviewer",
] as const;

/**
 * One CSV field: quoted when it holds a comma, a quote or a line break; a cell a spreadsheet
 * would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return) is
 * kept as text by a leading apostrophe.
 */
export function csvField(value: unknown): string {
  const raw = cellText(value === null || value === undefined ? "" : String(value));
  const text = /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface ExportOptions {
  /** The delivery folder (absolute). */
  dir: string;
  /** The project folder: recorded files are read only below it or the run's output folder. */
  project: string;
  /** Replace files in `dir` this export did not write. */
  force: boolean;
  /** `--selected`: the outputs selected in `selections` are delivered instead of the approved. */
  selected?: boolean;
  /** Each output of a job with `select:` and whether it is selected (`selectionsOf`). */
  selections?: ReadonlyMap<string, boolean>;
}

export interface Exported {
  /** Outputs in the delivery folder, relative to it. */
  files: string[];
  csv: string;
  /** What was not delivered ("hero-r1 output 0", review.csv), each with why. */
  refused: { what: string; reason: string }[];
}

/**
 * Copies a run's approved outputs, each with its provenance sidecar, into `dir`, and writes
 * `review.csv` there: one row per output of the run with the decision on it (blank when not
 * reviewed) and the note, `exported` yes with its path in `dir` for those copied, no and no
 * path for the rest. An output without a sidecar of its own (a text) gets one written. Nothing is written outside `dir`: an output is placed where it lies
 * below the run's output folder, and one that lies elsewhere (taken over from another folder)
 * under its job id. Each file is read only when it is a regular file inside the project or the
 * run's folder and holds the bytes the record says; a file already in `dir` is replaced only
 * with `force` (or left when it holds the same bytes).
 */
export async function exportApproved(
  store: Store,
  run: RunRow,
  options: ExportOptions,
): Promise<Exported> {
  const { dir } = options;
  const exported: Exported = { files: [], csv: path.join(dir, REVIEW_CSV), refused: [] };
  const rows = [CSV_COLUMNS.join(",")];
  mkdirSync(dir, { recursive: true });
  for await (const row of store.reportRows({ run: run.id })) {
    if (row.output === null || row.output.path === null) continue;
    const record = reviewRecord(run.output_dir, row.task, row.output);
    const before = exported.files.length;
    const selected = options.selections?.get(selectionId(record.key, row.output.idx));
    const wanted =
      options.selected === true ? selected === true : record.review?.decision === "approved";
    if (wanted) {
      const refusal = await deliver(store, row, record, run, options, exported.files);
      const copy = exported.files.length > before ? exported.files.at(-1) : undefined;
      if (copy !== undefined && row.output.path !== null)
        await exportExtras(record, row.output.path, copy, run, options);
      if (refusal !== undefined)
        exported.refused.push({
          what: `${record.label} output ${record.output}`,
          reason: refusal,
        });
    }
    const delivered = exported.files.length > before ? exported.files.at(-1) : undefined;
    rows.push(csvRow(record, delivered, selected));
  }
  const csv = `${rows.join("\n")}\n`;
  const there = await holding(exported.csv);
  if (there === undefined || there === sha256Of(csv) || options.force) {
    rmSync(exported.csv, { force: true });
    writeFileSync(exported.csv, csv, { flag: "wx" });
  } else
    exported.refused.push({
      what: REVIEW_CSV,
      reason: `${exported.csv} is there already and was not written by this export (--force replaces it)`,
    });
  return exported;
}

/**
 * A review.csv row; `delivered`: the output's path in the delivery folder, when it is there;
 * `selected`: whether `select:` picked it, undefined when its job does not select.
 */
function csvRow(
  record: ReviewRecord,
  delivered: string | undefined,
  selected: boolean | undefined,
): string {
  return [
    delivered ?? "",
    delivered === undefined ? "no" : "yes",
    record.job,
    record.label,
    record.output,
    record.take,
    record.repeat,
    JSON.stringify(record.vars),
    record.review?.decision ?? "",
    record.review?.note ?? "",
    record.sha256,
    record.judge?.verdict ?? "",
    record.judge?.reason ?? "",
    selected === undefined ? "" : selected ? "yes" : "no",
    record.review?.by ?? "",
  ]
    .map(csvField)
    .join(",");
}

/** Copies one approved output and its sidecar into the delivery folder; why not, when not. */
async function deliver(
  store: Store,
  row: ReportRow,
  record: ReviewRecord,
  run: RunRow,
  options: ExportOptions,
  written: string[],
): Promise<string | undefined> {
  const source = row.output?.path;
  if (source === undefined || source === null) return "no file is recorded";
  const roots = [options.project, run.output_dir];
  const unsafe = recordedFileRefusal(source, roots);
  if (unsafe !== undefined) return `refused: ${unsafe}`;
  const sha256 = await hashFile(source);
  if (sha256 !== record.sha256)
    return `${source} no longer holds the bytes recorded for it (sha256 ${sha256}, recorded ${record.sha256})`;
  const name = placeInDelivery(run.output_dir, record.job, source);
  const target = path.resolve(options.dir, name);
  if (!isBelow(options.dir, target)) return `${name} would lie outside ${options.dir}`;
  const there = await holding(target);
  if (there !== undefined && there !== sha256 && !options.force)
    return `${target} is there already and was not written by this export (--force replaces it)`;
  mkdirSync(path.dirname(target), { recursive: true });
  if (!isBelow(realpathSync(options.dir), path.join(realpathSync(path.dirname(target)), "x")))
    return `${path.dirname(target)} leads outside ${options.dir} (a link)`;
  if (there !== sha256) place(source, target);
  const sidecar = `${source}.json`;
  const sidecarThere = await holding(`${target}.json`);
  if (sidecarThere === undefined || options.force) {
    if (existsSync(sidecar) && recordedFileRefusal(sidecar, roots) === undefined)
      place(sidecar, `${target}.json`);
    else if (row.output !== null) {
      // A text's record lies beside it by its label, for all its choices: its own is written.
      const task = await store.task(row.task.key);
      if (task !== undefined) {
        rmSync(`${target}.json`, { force: true });
        writeFileSync(`${target}.json`, outputProvenance(task, row.output), { flag: "wx" });
      }
    }
  }
  written.push(name.split(path.sep).join("/"));
  return undefined;
}

/** Writes `source` at `target`, which is gone first: a link there is removed, not followed. */
function place(source: string, target: string): void {
  rmSync(target, { force: true });
  copyFileSync(source, target, constants.COPYFILE_EXCL);
}

/**
 * Where an output goes in the delivery folder: where it lies below the run's output folder,
 * else (an output taken over from another folder) `<job id>/<its name>`.
 */
export function placeInDelivery(outputDir: string, jobId: string, file: string): string {
  return isBelow(outputDir, file)
    ? path.relative(outputDir, file)
    : path.join(jobId, path.basename(file));
}

/** The sha256 of the regular file at `target`; "" for anything else there; undefined for nothing. */
async function holding(target: string): Promise<string | undefined> {
  try {
    const stat = lstatSync(target);
    return stat.isFile() ? await hashFile(target) : "";
  } catch {
    return undefined;
  }
}
