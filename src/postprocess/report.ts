import { mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { localWriteError } from "../core/errors.js";
import { type FileWrites, nodeFileWrites, type PieceFile } from "../core/file-writes.js";
import { isSimulator } from "../manifest/index.js";
import {
  type ReportScope,
  type ReportTask,
  type RunRow,
  type Store,
  variablesOf,
} from "../store/index.js";
import {
  cappedNote,
  failureItem,
  failuresEnd,
  failuresStart,
  GALLERY_FAILURES,
  GALLERY_TASKS,
  galleryEnd,
  galleryStart,
  jobEnd,
  jobStart,
  taskCard,
} from "./gallery.js";
import { parametersOf, promptOf, type ReviewRecord, reviewRecord } from "./review-record.js";

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

/** Text written to a file in large chunks as it is produced, renamed into place when whole. */
class ChunkedFile {
  readonly #target: string;
  readonly #partial: string;
  readonly #file: PieceFile;
  #closed = false;
  #chunks: string[] = [];
  #size = 0;

  constructor(target: string, files: FileWrites) {
    this.#target = target;
    this.#partial = `${target}.${process.pid}.partial`;
    this.#file = files.open(this.#partial);
  }

  write(text: string): void {
    this.#chunks.push(text);
    this.#size += text.length;
    if (this.#size >= 1 << 16) this.#flush();
  }

  #flush(): void {
    if (this.#chunks.length > 0) this.#file.write(this.#chunks.join(""));
    this.#chunks = [];
    this.#size = 0;
  }

  commit(): void {
    this.#flush();
    this.#close();
    renameSync(this.#partial, this.#target);
  }

  /** Removes the partial file (after an error); a committed file stays. */
  abandon(): void {
    this.#close();
    rmSync(this.#partial, { force: true });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}

/** Longer answers are cut here: a page is for reading, the file holds the rest. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** A text output's words from its file; null for media, or a file gone. */
export function answerText(dir: string, record: ReviewRecord): string | null {
  if (record.file === null || record.content_type?.startsWith("text/") !== true) return null;
  const file = path.join(dir, record.file);
  try {
    if (statSync(file).size > MAX_ANSWER_BYTES)
      return `${readFileSync(file, "utf8").slice(0, MAX_ANSWER_BYTES)}…`;
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
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
  const dir = run.output_dir;
  const names = reportFiles(run, of);
  const scope: ReportScope = of === "folder" ? { folder: dir } : { run: run.id };
  mkdirSync(dir, { recursive: true });
  const opened: ChunkedFile[] = [];
  const open = (name: string) => {
    const file = new ChunkedFile(path.join(dir, name), files);
    opened.push(file);
    return file;
  };
  try {
    const results = open(names.results);
    const gallery = open(names.gallery);
    const summary = await store.summaryOf(scope);
    const { paid } = of === "run" ? summary : await store.summaryOf({ run: run.id });
    gallery.write(
      galleryStart({
        name: run.name,
        run: of === "run" ? run.id : null,
        ...summary,
        paidBy: { run: run.id, paid },
        simulator: isSimulator(run.base_url),
      }),
    );
    const tasks = Object.values(summary.states).reduce((sum, n) => sum + n, 0);
    gallery.write(cappedNote("tasks", GALLERY_TASKS, tasks));
    gallery.write(failuresStart());
    let failures = 0;
    for await (const failure of store.failuresOf(scope)) {
      failures += 1;
      if (failures <= GALLERY_FAILURES) gallery.write(failureItem(failure));
    }
    gallery.write(failuresEnd(failures));
    let outputs = 0;
    // Past the cap the page ends its cards; the JSON Lines file goes on to the last output.
    let cards = 0;
    let task: ReportTask | undefined;
    let records: ReviewRecord[] = [];
    const flushTask = () => {
      if (task === undefined) return;
      cards += 1;
      if (cards > GALLERY_TASKS) return;
      const body = JSON.parse(task.request) as Record<string, unknown>;
      gallery.write(
        taskCard(
          records,
          {
            label: task.label,
            state: task.state,
            reason: task.reason,
            model: typeof body.model === "string" ? body.model : null,
            prompt: promptOf(body),
            parameters: parametersOf(body),
            cost: task.cost,
            estimatedCost: task.estimated_cost,
            variables: variablesOf(task),
          },
          outputs - records.length,
          (record) => answerText(dir, record),
        ),
      );
    };
    for await (const row of store.reportRows(scope)) {
      if (row.task.key !== task?.key) {
        flushTask();
        if (row.task.job_id !== task?.job_id && cards < GALLERY_TASKS) {
          if (task !== undefined) gallery.write(jobEnd());
          gallery.write(jobStart(row.task.job_id));
        }
        task = row.task;
        records = [];
      }
      if (row.output === null || row.output.path === null) continue;
      const record = reviewRecord(dir, row.task, row.output);
      records.push(record);
      results.write(`${JSON.stringify(record)}\n`);
      outputs += 1;
    }
    flushTask();
    if (task !== undefined) gallery.write(jobEnd());
    gallery.write(cappedNote("tasks", GALLERY_TASKS, cards));
    gallery.write(galleryEnd(names.results));
    results.commit();
    gallery.commit();
    return {
      results: path.join(dir, names.results),
      gallery: path.join(dir, names.gallery),
      outputs,
      failures,
    };
  } catch (error) {
    for (const file of opened) file.abandon();
    // A full or read-only disk names the record it could not write, not its partial file.
    const partial = (error as { path?: unknown } | null)?.path;
    const file = typeof partial === "string" ? partial.replace(/\.\d+\.partial$/, "") : dir;
    throw localWriteError(error, file) ?? error;
  }
}
