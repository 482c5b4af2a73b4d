import { availableParallelism } from "node:os";
import path from "node:path";
import PQueue from "p-queue";
import { coerceError, localWriteError } from "../core/errors.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import type { OutputVerdict, PostProcess } from "../engine/index.js";
import type { ExpectedOutputs, JudgeImage, RequestBody } from "../families/index.js";
import type { JobChecks, JudgeSpec } from "../manifest/index.js";
import type { OutputRow, TaskRow } from "../store/index.js";
import { hasC2pa } from "./c2pa.js";
import { checkClip } from "./check-clip.js";
import { checkImage } from "./check-image.js";
import { expectedFor } from "./expected.js";
import { judgeImages } from "./judge-images.js";
import { writeSidecar } from "./sidecar.js";
import { makePoster, makeThumbnail, type ThumbnailSettings } from "./thumbnails.js";

export interface PostProcessorOptions {
  /** The run's output folder; thumbnails go to its `.thumbs/`. */
  outputDir: string;
  /** `output.thumbnails` of the manifest; false makes none (clips still get a poster). */
  thumbnails: false | ThumbnailSettings;
  /** A job's `checks:` (the manifest's merged with the job's own), by job id. */
  checksFor(jobId: string): JobChecks;
  /** Outputs checked at once; default: the machine's cores. */
  concurrency?: number;
  /** The run talks to the built-in simulator: its sidecars say the outputs are stand-ins. */
  simulator?: boolean;
  /** Where sidecars and thumbnails are written (default: this machine's file systems). */
  files?: FileWrites;
}

/**
 * Checks every downloaded output against what its family promised for the request and makes
 * its review images, on a queue bounded to the machine's cores, beside the run's downloads.
 */
export class PostProcessor implements PostProcess {
  readonly #o: PostProcessorOptions;
  readonly #queue: PQueue;
  readonly #files: FileWrites;
  /** Set by `drain()`: what has not started rejects at once instead of running. */
  #stopped = false;

  constructor(options: PostProcessorOptions) {
    this.#o = options;
    this.#files = options.files ?? nodeFileWrites;
    this.#queue = new PQueue({ concurrency: options.concurrency ?? availableParallelism() });
  }

  judgeOf(jobId: string): JudgeSpec | undefined {
    return this.#o.checksFor(jobId).judge;
  }

  judgeImages(
    output: OutputRow & { path: string },
    poster: string | null,
    judge: Pick<JudgeSpec, "endpoint">,
    now: number,
  ): Promise<JudgeImage[]> {
    return judgeImages(output, poster, judge, now);
  }

  async process(
    row: TaskRow,
    outputs: readonly OutputRow[],
    beforeSidecars?: (verdicts: OutputVerdict[]) => Promise<void>,
  ): Promise<{ verdicts: OutputVerdict[]; onFail: "report" | "retry" }> {
    const body = JSON.parse(row.request) as RequestBody;
    const expected = expectedFor(row, body);
    const checks = this.#o.checksFor(row.job_id);
    const verdicts = await Promise.all(
      outputs.map((output) =>
        this.#queue.add(() => {
          if (this.#stopped) throw new Error("post-processing stopped before this output");
          return this.#check(row, output, expected, body, checks);
        }),
      ),
    );
    const first = verdicts[0];
    if (expected.exact && outputs.length !== expected.count && first !== undefined) {
      first.ok = false;
      first.problems.push(
        `${row.label} gave ${outputs.length} outputs, expected ${expected.count}`,
      );
    }
    await beforeSidecars?.(verdicts);
    await Promise.all(
      outputs.map((output, i) => {
        const verdict = verdicts[i];
        return output.path === null || verdict === undefined
          ? undefined
          : writeSidecar(
              row,
              { ...output, path: output.path },
              this.#o.outputDir,
              verdict,
              this.#o.simulator === true,
              this.#files,
            );
      }),
    );
    return { verdicts, onFail: checks.on_fail ?? "report" };
  }

  async drain(): Promise<void> {
    this.#stopped = true;
    await this.#queue.onIdle();
  }

  async #check(
    row: TaskRow,
    output: OutputRow,
    expected: ExpectedOutputs,
    body: RequestBody,
    checks: JobChecks,
  ): Promise<OutputVerdict> {
    const verdict: OutputVerdict = {
      index: output.idx,
      ok: true,
      problems: [],
      thumbnail: null,
      poster: null,
      details: {},
    };
    const file = output.path;
    if (file === null) {
      verdict.problems.push(`output ${output.idx + 1} of ${row.label} is not on disk`);
    } else if (expected.kind === "video") {
      await this.#checkClip(verdict, row, file, output.content_type, expected, body, checks);
    } else if (expected.kind === "image") {
      await this.#checkImage(verdict, row, file, output.content_type, expected, body);
    }
    // Whether the vendor signed it: the original keeps its bytes, so its manifest survives.
    if (file !== null && (expected.kind === "video" || expected.kind === "image"))
      verdict.details.c2pa = hasC2pa(file);
    verdict.ok = verdict.problems.length === 0;
    return verdict;
  }

  async #checkImage(
    verdict: OutputVerdict,
    row: TaskRow,
    file: string,
    contentType: string | null,
    expected: ExpectedOutputs,
    body: RequestBody,
  ): Promise<void> {
    const name = path.basename(file);
    const { thumbnails, outputDir } = this.#o;
    const result = await checkImage(file, name, contentType, expected, body, thumbnails === false);
    verdict.problems.push(...result.problems);
    verdict.details = result.details;
    if (thumbnails === false || result.details.format === undefined) return;
    // Making the thumbnail decodes the whole picture: a broken one fails here.
    try {
      verdict.thumbnail = await makeThumbnail(
        { source: file, file },
        outputDir,
        row.job_id,
        thumbnails,
        this.#files,
      );
    } catch (error) {
      // A disk that cannot take the thumbnail is this machine's fault, not the picture's.
      if (localWriteError(error, file) !== undefined) throw error;
      verdict.problems.push(`${name} does not decode: ${coerceError(error).message}`);
    }
  }

  async #checkClip(
    verdict: OutputVerdict,
    row: TaskRow,
    file: string,
    contentType: string | null,
    expected: ExpectedOutputs,
    body: RequestBody,
    checks: JobChecks,
  ): Promise<void> {
    const name = path.basename(file);
    const result = await checkClip(file, name, contentType, expected, body, checks);
    verdict.problems.push(...result.problems);
    verdict.details = result.details;
    if (result.durationSeconds === null) return;
    const { thumbnails, outputDir } = this.#o;
    try {
      // Early in the clip, past a fade-in.
      const at = Math.min(0.5, result.durationSeconds / 2);
      verdict.poster = await makePoster(file, outputDir, row.job_id, at);
      if (thumbnails !== false)
        verdict.thumbnail = await makeThumbnail(
          { source: verdict.poster, file },
          outputDir,
          row.job_id,
          thumbnails,
          this.#files,
        );
    } catch (error) {
      verdict.problems.push(
        `${name}: no poster frame: ${coerceError(error).message.split("\n")[0]}`,
      );
    }
  }
}
