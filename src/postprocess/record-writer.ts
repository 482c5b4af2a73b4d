import path from "node:path";
import type { FileWrites } from "../core/file-writes.js";
import {
  type FailureRow,
  type ReportSummary,
  type ReportTask,
  variablesOf,
} from "../store/index.js";
import { ChunkedFile } from "./chunked-file.js";
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
import { parametersOf, promptOf, type ReviewRecord } from "./review-record.js";

/** What a record's gallery opens with. */
export interface RecordHead {
  name: string;
  /** The run whose own subset this is; null for the folder's record. */
  run: number | null;
  summary: ReportSummary;
  paidBy: { run: number; paid: number };
  simulator: boolean;
}

/**
 * One record being written (a JSON Lines file and its gallery) from the rows of its scope as
 * they are read: its head and failures first, then each row; files renamed into place at the
 * end. Several records over the same rows are written from one reading of them.
 */
export class RecordWriter {
  readonly #dir: string;
  readonly #results: ChunkedFile;
  readonly #gallery: ChunkedFile;
  readonly #names: { results: string; gallery: string };
  readonly #answerText: (dir: string, record: ReviewRecord) => string | null;
  #failures = 0;
  #outputs = 0;
  // Past the cap the page ends its cards; the JSON Lines file goes on to the last output.
  #cards = 0;
  #task: ReportTask | undefined;
  #records: ReviewRecord[] = [];

  constructor(
    dir: string,
    names: { results: string; gallery: string },
    files: FileWrites,
    answerText: (dir: string, record: ReviewRecord) => string | null,
  ) {
    this.#dir = dir;
    this.#names = names;
    this.#answerText = answerText;
    this.#results = new ChunkedFile(path.join(dir, names.results), files);
    try {
      this.#gallery = new ChunkedFile(path.join(dir, names.gallery), files);
    } catch (error) {
      this.#results.abandon();
      throw error;
    }
  }

  /** The gallery's head and the scope's failures, before any row. */
  async head(head: RecordHead, failures: AsyncIterable<FailureRow>): Promise<void> {
    this.#gallery.write(galleryStart({ ...head, ...head.summary }));
    const tasks = Object.values(head.summary.states).reduce((sum, n) => sum + n, 0);
    this.#gallery.write(cappedNote("tasks", GALLERY_TASKS, tasks));
    this.#gallery.write(failuresStart());
    for await (const failure of failures) {
      this.#failures += 1;
      if (this.#failures <= GALLERY_FAILURES) this.#gallery.write(failureItem(failure));
    }
    this.#gallery.write(failuresEnd(this.#failures));
  }

  /** A row of the scope: its task, and its output's record and JSON line (null without one). */
  row(task: ReportTask, record: ReviewRecord | null, line: string): void {
    if (task.key !== this.#task?.key) {
      this.#flushTask();
      if (task.job_id !== this.#task?.job_id && this.#cards < GALLERY_TASKS) {
        if (this.#task !== undefined) this.#gallery.write(jobEnd());
        this.#gallery.write(jobStart(task.job_id));
      }
      this.#task = task;
      this.#records = [];
    }
    if (record === null) return;
    this.#records.push(record);
    this.#results.write(line);
    this.#outputs += 1;
  }

  /** Ends both files and puts them in place. */
  end(): { results: string; gallery: string; outputs: number; failures: number } {
    this.#flushTask();
    if (this.#task !== undefined) this.#gallery.write(jobEnd());
    this.#gallery.write(cappedNote("tasks", GALLERY_TASKS, this.#cards));
    this.#gallery.write(galleryEnd(this.#names.results));
    this.#results.commit();
    this.#gallery.commit();
    return {
      results: path.join(this.#dir, this.#names.results),
      gallery: path.join(this.#dir, this.#names.gallery),
      outputs: this.#outputs,
      failures: this.#failures,
    };
  }

  /** Removes what was not committed (after an error). */
  abandon(): void {
    this.#results.abandon();
    this.#gallery.abandon();
  }

  #flushTask(): void {
    const task = this.#task;
    if (task === undefined) return;
    this.#cards += 1;
    if (this.#cards > GALLERY_TASKS) return;
    const body = JSON.parse(task.request) as Record<string, unknown>;
    this.#gallery.write(
      taskCard(
        this.#records,
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
        this.#outputs - this.#records.length,
        (record) => this.#answerText(this.#dir, record),
      ),
    );
  }
}
