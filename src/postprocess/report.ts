import { mkdirSync } from "node:fs";
import path from "node:path";
import { localWriteError } from "../core/errors.js";
import { readRecordedSync, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import { isSimulator } from "../manifest/index.js";
import type { ReportOrder, ReportScope, RunRow, Store } from "../store/index.js";
import { withOutputExtras } from "./record-extras.js";
import { RecordWriter } from "./record-writer.js";
import { type ReviewRecord, reviewRecord } from "./review-record.js";
import { maySelect, selectionsOf, withSelection } from "./selection.js";

export const RESULTS_FILE = "results.jsonl";
export const GALLERY_FILE = "index.html";

/**
 * Which record to write: the folder's (`results.jsonl`, `index.html`: every current output
 * in the folder, whichever run last touched it) or a run's own subset beside it
 * (`run-<id>.jsonl`, `run-<id>.html`).
 */
export type ReportOf = "folder" | "run";

function reportFiles(run: RunRow, of: ReportOf): { results: string; gallery: string } {
  if (of === "folder") return { results: RESULTS_FILE, gallery: GALLERY_FILE };
  return { results: `run-${run.id}.jsonl`, gallery: `run-${run.id}.html` };
}

/** Longer answers are cut here: a page is for reading, the file holds the rest. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** A text output's words from its file; null for media, or a file gone. */
export function answerText(dir: string, record: ReviewRecord): string | null {
  if (record.file === null || record.content_type?.startsWith("text/") !== true) return null;
  const file = path.join(dir, record.file);
  const read = readRecordedSync(file, TEXT_FILE_MAX_BYTES);
  if ("problem" in read) return null;
  const text = read.bytes.toString("utf8");
  return text.length > MAX_ANSWER_BYTES ? `${text.slice(0, MAX_ANSWER_BYTES)}…` : text;
}

export interface ReportWritten {
  results: string;
  gallery: string;
  outputs: number;
  failures: number;
}

/**
 * Writes a record (one JSON line per output on disk, and a gallery) into the run's output
 * folder from the store, reading one row at a time: by default the folder's, so that a
 * partial run (`--only`, `--force`, a stop) never drops the outputs of earlier runs from it.
 */
export async function writeReport(
  store: Store,
  run: RunRow,
  of: ReportOf = "folder",
  files: FileWrites = nodeFileWrites,
): Promise<ReportWritten> {
  const [written] = await writeReports(store, run, [of], files);
  return written as ReportWritten;
}

/** Whether two orders list the same tasks in the same order. */
function sameOrder(a: ReportOrder, b: ReportOrder): boolean {
  return (
    a.folder === b.folder &&
    a.places.length === b.places.length &&
    a.places.every((place, i) => place === b.places[i])
  );
}

/**
 * Writes several records of a run (`writeReport`), in the order asked. Records whose scopes
 * hold the same tasks (a folder only this run wrote into, and the run's own) are written from
 * one reading of their rows.
 */
export async function writeReports(
  store: Store,
  run: RunRow,
  records: readonly ReportOf[],
  files: FileWrites = nodeFileWrites,
): Promise<ReportWritten[]> {
  const dir = run.output_dir;
  mkdirSync(dir, { recursive: true });
  const writers: RecordWriter[] = [];
  try {
    const scopes: ReportScope[] = records.map((of) =>
      of === "folder" ? { folder: dir } : { run: run.id },
    );
    const orders: ReportOrder[] = [];
    for (const scope of scopes) orders.push(await store.reportOrderOf(scope));
    const own = await store.summaryOf({ run: run.id });
    for (const [i, of] of records.entries()) {
      const scope = scopes[i] as ReportScope;
      const writer = new RecordWriter(dir, reportFiles(run, of), files, answerText);
      writers.push(writer);
      await writer.head(
        {
          name: run.name,
          run: of === "run" ? run.id : null,
          summary: of === "run" ? own : await store.summaryOf(scope),
          paidBy: { run: run.id, paid: own.paid },
          simulator: isSimulator(run.base_url),
        },
        store.failuresOf(scope),
      );
    }
    const read = new Set<number>();
    for (const [i, order] of orders.entries()) {
      if (read.has(i)) continue;
      const selections = maySelect(run) ? await selectionsOf(store.reportRows(order)) : undefined;
      const sharing = orders.flatMap((other, j) => (j >= i && sameOrder(order, other) ? [j] : []));
      for (const j of sharing) read.add(j);
      for await (const row of store.reportRows(order)) {
        const { task, output } = row;
        // Every record of this folder writes an output alike: made once for all of them.
        const record =
          output === null || output.path === null
            ? null
            : withOutputExtras(
                dir,
                withSelection(reviewRecord(dir, task, output), selections),
                output.path,
              );
        const line = record === null ? "" : `${JSON.stringify(record)}\n`;
        for (const j of sharing) writers[j]?.row(task, record, line);
      }
    }
    return writers.map((writer) => writer.end());
  } catch (error) {
    for (const writer of writers) writer.abandon();
    // A full or read-only disk names the record it could not write, not its partial file.
    const partial = (error as { path?: unknown } | null)?.path;
    const file = typeof partial === "string" ? partial.replace(/\.\d+\.partial$/, "") : dir;
    throw localWriteError(error, file) ?? error;
  }
}
