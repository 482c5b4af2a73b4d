import { existsSync } from "node:fs";
import { fileMatches } from "../core/output-files.js";
import { claimAlive } from "../core/process.js";
import { isBelow } from "../core/safe-files.js";
import {
  type OutputCopy,
  type OutputRow,
  type Publication,
  type TaskRow,
  TaskState,
} from "../store/index.js";

/**
 * Where a recorded task goes when a run takes it on (at the start, or as a dependant): the
 * decision is pure (`placementOf`); `factsOf` gathers what it needs from disk.
 */

export type Placement =
  /** Submit it. */
  | "queue"
  /** Leave it: a stand-in, a live claim of another process, or a task that has ended. */
  | "leave"
  /** A dead process's claim: the outcome of its submit is unknown; back to pending, counted. */
  | "release-unknown"
  /** The gateway holds it: poll. */
  | "poll"
  /** Completed: download its outputs (links first refreshed from the gateway). */
  | "download"
  /** Downloaded: check it and make its thumbnails. */
  | "check"
  /** Done, files intact: nothing to pay. */
  | "done"
  /** Done, files intact in another output folder only: deliver them into the run's. */
  | "deliver"
  /** Done, files intact, a thumbnail or poster gone: check again to make them. */
  | "recheck"
  /** Done, a file gone while its links work: download again. */
  | "redownload"
  /** Done, files gone and links dead, or `--force`: a new task. */
  | "redo";

export interface PlacementFacts {
  /** `--force`: redo tasks already done. */
  force: boolean;
  /** The process named in a submitting task's claim may still be alive. */
  claimAlive: boolean;
  /**
   * Every output file of a done task is on disk with its recorded size and hash, where it was
   * downloaded or in a folder it was delivered into.
   */
  filesIntact: boolean;
  /**
   * Some output is intact only outside the run's output folder, or its copy delivered there
   * lacks a review image: it is delivered (again).
   */
  toDeliver: boolean;
  /** A thumbnail or poster recorded for a done task is gone (and post-processing runs). */
  reviewImagesGone: boolean;
  /** Every output of a done task has a link that has not expired. */
  linksLive: boolean;
  /**
   * Every output not intact on disk is published, verified, in each target of `output.publish`
   * with its recorded hash: it is done (a fleet's other host, a folder cleaned up).
   */
  published?: boolean;
}

export function placementOf(task: TaskRow, facts: PlacementFacts): Placement {
  switch (task.state) {
    case TaskState.Pending:
      return task.placeholder === 1 ? "leave" : "queue";
    case TaskState.Submitting:
      return facts.claimAlive ? "leave" : "release-unknown";
    case TaskState.Submitted:
    case TaskState.Processing:
      return "poll";
    case TaskState.Completed:
      return "download";
    case TaskState.Downloaded:
      return "check";
    case TaskState.Done:
      if (facts.force) return "redo";
      if (facts.filesIntact && facts.toDeliver) return "deliver";
      if (facts.filesIntact) return facts.reviewImagesGone ? "recheck" : "done";
      if (facts.published === true) return "done";
      return facts.linksLive ? "redownload" : "redo";
    case TaskState.Failed:
    case TaskState.Rejected:
    case TaskState.Expired:
    case TaskState.Skipped:
    case TaskState.Held:
      return "leave";
    default: {
      const never: never = task.state;
      throw new Error(`unknown task state ${String(never)}`);
    }
  }
}

/** One place an output's file is recorded at: where it was downloaded, or a delivered copy. */
export interface FilePlace {
  idx: number;
  /** The output folder it lies in (a copy's); null for where it was downloaded. */
  outputDir: string | null;
  path: string;
  thumbnail: string | null;
  poster: string | null;
}

/** A done task's outputs as found on disk: where each is intact, and which are gone. */
export interface FoundFiles {
  /** Per output, an intact place: in the run's folder when there is one there. */
  intact: Map<number, FilePlace>;
  /** Outputs with no intact file anywhere, by the file recorded where they were downloaded. */
  missing: { idx: number; path: string | null }[];
}

/** What a task's facts are read from: its outputs and their delivered copies. */
export interface RecordedFiles {
  outputs(): Promise<OutputRow[]>;
  copies(): Promise<OutputCopy[]>;
  /** What of them is published to object storage (read only when a file is not on disk). */
  publications?(): Promise<Publication[]>;
}

/** Reads what `placementOf` needs to know of a task: its claim, and a done task's files. */
export async function factsOf(
  task: TaskRow,
  recorded: RecordedFiles,
  options: {
    now: number;
    force: boolean;
    ownClaim: string;
    checksRun: boolean;
    /** The run's output folder: files intact only elsewhere are delivered into it. */
    outputDir: string;
    /** The run's `output.publish` targets (URLs): a file published to each of them is done. */
    publishedTo?: readonly string[];
  },
): Promise<PlacementFacts & { found?: FoundFiles; outputs?: OutputRow[] }> {
  const facts: PlacementFacts = {
    force: options.force,
    claimAlive: task.claimed_by !== options.ownClaim && claimAlive(task.claimed_by),
    filesIntact: false,
    toDeliver: false,
    reviewImagesGone: false,
    linksLive: false,
  };
  if (task.state !== TaskState.Done || options.force) return facts;
  const outputs = await recorded.outputs();
  const found = await findFiles(outputs, () => recorded.copies(), options.outputDir);
  facts.filesIntact = found.missing.length === 0;
  if (!facts.filesIntact)
    facts.published = await publishedEverywhere(
      outputs,
      found.missing,
      recorded,
      options.publishedTo,
    );
  const places = [...found.intact.values()];
  facts.toDeliver = places.some(
    (place) =>
      !isBelow(options.outputDir, place.path) ||
      (place.outputDir !== null && reviewImagesGone([place])),
  );
  // A copy's review images are delivered again; only the downloaded file's are made again.
  facts.reviewImagesGone =
    options.checksRun && reviewImagesGone(places.filter((place) => place.outputDir === null));
  facts.linksLive =
    outputs.length > 0 &&
    outputs.every(
      (o) => o.url !== null && (o.expires_at ?? Number.POSITIVE_INFINITY) > options.now,
    );
  return { ...facts, found, outputs };
}

/**
 * Where each output is intact: the place in `outputDir` first (downloaded there, or delivered),
 * else any other. Copies are read only when some output is not intact in the folder.
 */
async function findFiles(
  outputs: readonly OutputRow[],
  copies: () => Promise<OutputCopy[]>,
  outputDir: string,
): Promise<FoundFiles> {
  const found: FoundFiles = { intact: new Map(), missing: [] };
  let delivered: OutputCopy[] | undefined;
  for (const output of outputs) {
    const own: FilePlace | null =
      output.path === null
        ? null
        : { idx: output.idx, outputDir: null, ...pick(output, output.path) };
    if (own !== null && isBelow(outputDir, own.path) && (await intact(own, output))) {
      found.intact.set(output.idx, own);
      continue;
    }
    delivered ??= await copies();
    const places: FilePlace[] = delivered
      .filter((copy) => copy.idx === output.idx)
      .map((copy) => ({ idx: copy.idx, outputDir: copy.output_dir, ...pick(copy, copy.path) }))
      .sort((a, b) => Number(isBelow(outputDir, b.path)) - Number(isBelow(outputDir, a.path)));
    if (own !== null && !isBelow(outputDir, own.path)) places.push(own);
    let place: FilePlace | undefined;
    for (const candidate of places)
      if (await intact(candidate, output)) {
        place = candidate;
        break;
      }
    if (place === undefined) found.missing.push({ idx: output.idx, path: output.path });
    else found.intact.set(output.idx, place);
  }
  return found;
}

function pick(
  row: { thumbnail: string | null; poster: string | null },
  file: string,
): Pick<FilePlace, "path" | "thumbnail" | "poster"> {
  return { path: file, thumbnail: row.thumbnail, poster: row.poster };
}

function intact(place: FilePlace, output: OutputRow): Promise<boolean> {
  return fileMatches(place.path, output.bytes, output.sha256);
}

function reviewImagesGone(places: readonly FilePlace[]): boolean {
  return places.some((place) =>
    [place.thumbnail, place.poster].some((file) => file !== null && !existsSync(file)),
  );
}

async function publishedEverywhere(
  outputs: readonly OutputRow[],
  missing: FoundFiles["missing"],
  recorded: RecordedFiles,
  targets: readonly string[] = [],
): Promise<boolean> {
  if (targets.length === 0 || recorded.publications === undefined) return false;
  const published = await recorded.publications();
  return missing.every(({ idx }) => {
    const sha256 = outputs.find((output) => output.idx === idx)?.sha256;
    return targets.every((target) =>
      published.some(
        (row) =>
          row.idx === idx && row.part === "file" && row.target === target && row.sha256 === sha256,
      ),
    );
  });
}
