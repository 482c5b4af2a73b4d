import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RunRow, Store } from "../store/index.js";
import { reviewRecord } from "./review-record.js";

export const REVIEW_CSV = "review.csv";

const CSV_COLUMNS = [
  "file",
  "job",
  "label",
  "output",
  "take",
  "repeat",
  "vars",
  "decision",
  "note",
  "sha256",
] as const;

/** One CSV field: quoted when it holds a comma, a quote or a line break. */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export interface Exported {
  /** Outputs copied, relative to the delivery folder. */
  files: string[];
  csv: string;
}

/**
 * Copies a run's approved outputs, each with its provenance sidecar, into `dir` at the same
 * place below it as below the output folder, and writes `review.csv` there: one row per
 * output of the run with the decision on it (blank when not reviewed) and the note.
 */
export async function exportApproved(store: Store, run: RunRow, dir: string): Promise<Exported> {
  const files: string[] = [];
  const rows = [CSV_COLUMNS.join(",")];
  mkdirSync(dir, { recursive: true });
  for await (const row of store.reportRows({ run: run.id })) {
    if (row.output === null || row.output.path === null) continue;
    const record = reviewRecord(run.output_dir, row.task, row.output);
    const decision = record.review?.decision ?? "";
    rows.push(
      [
        record.file,
        record.job,
        record.label,
        record.output,
        record.take,
        record.repeat,
        JSON.stringify(record.vars),
        decision,
        record.review?.note ?? "",
        record.sha256,
      ]
        .map(csvField)
        .join(","),
    );
    if (decision !== "approved" || record.file === null) continue;
    // The recorded path, relative: never a path read from a response or a URL.
    const target = path.join(dir, record.file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(row.output.path, target);
    const sidecar = `${row.output.path}.json`;
    if (existsSync(sidecar)) copyFileSync(sidecar, `${target}.json`);
    files.push(record.file);
  }
  const csv = path.join(dir, REVIEW_CSV);
  writeFileSync(csv, `${rows.join("\n")}\n`);
  return { files, csv };
}
