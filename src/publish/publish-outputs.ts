import { resolveFromCwd } from "../core/io.js";
import type { PublishTarget } from "../manifest/index.js";
import type { OutputRow, Publication, Store, TaskRow } from "../store/index.js";
import type { ObjectStorage } from "./object-storage.js";
import { bodyOf, contentTypeOf, fileFacts, objectKey, objectsOf } from "./output-objects.js";
import { headObject, putObject, UploadFailed } from "./upload.js";

/** Where outputs are published from and to. */
export interface PublishPlace {
  store: Pick<Store, "outputsOf" | "copiesOf" | "publicationsOf" | "recordPublications">;
  storage: ObjectStorage;
  targets: readonly PublishTarget[];
  /** The output folder whose layout the objects keep. */
  outputDir: string;
  now(): number;
}

/** What publishing a task's outputs did. */
export interface TaskPublished {
  /** Objects uploaded and verified now. */
  uploaded: number;
  /** Outputs not in every target, each with why. */
  missing: { idx: number; reason: string }[];
  /** Credentials or permissions refused: publishing anything more is pointless. */
  refused: boolean;
}

/**
 * Publishes what of a done task's outputs is not published yet to every target: each file,
 * review image, rendition and sidecar uploaded, verified and recorded. With `verify`, what
 * the record holds is checked in the bucket too (`gwrun publish`), and sent again where it
 * is gone.
 */
export async function publishTask(
  task: Pick<TaskRow, "key">,
  place: PublishPlace,
  options: { verify?: boolean; signal?: AbortSignal } = {},
): Promise<TaskPublished> {
  const all = await place.store.outputsOf(task.key);
  const copies = await place.store.copiesOf(task.key);
  // An output delivered into this folder from another is published from its copy here.
  const outputs = all
    .filter((output) => output.state === "downloaded" && output.sha256 !== null)
    .map((output) => {
      const copy = copies.find(
        (one) => one.idx === output.idx && samePath(one.output_dir, place.outputDir),
      );
      return copy === undefined
        ? output
        : { ...output, path: copy.path, thumbnail: copy.thumbnail, poster: copy.poster };
    });
  const recorded = await place.store.publicationsOf(task.key);
  const done: Publication[] = [];
  const result: TaskPublished = { uploaded: 0, missing: [], refused: false };
  try {
    for (const target of place.targets)
      for (const output of outputs) {
        const reason = await publishOutput(
          { output, count: all.length },
          target,
          place,
          recorded,
          done,
          options,
        );
        if (reason !== undefined) result.missing.push({ idx: output.idx, reason });
      }
  } catch (error) {
    if (!(error instanceof UploadFailed)) throw error;
    result.refused = true;
    result.missing.push({ idx: -1, reason: error.message });
  } finally {
    if (done.length > 0) await place.store.recordPublications(done);
  }
  result.uploaded = done.length;
  return result;
}

/** One output (of `count` of its task) into one target; undefined when it is all there, else why not. */
async function publishOutput(
  { output, count }: { output: OutputRow; count: number },
  target: PublishTarget,
  place: PublishPlace,
  recorded: readonly Publication[],
  done: Publication[],
  options: { verify?: boolean; signal?: AbortSignal },
): Promise<string | undefined> {
  const objects = objectsOf(output, count, place.outputDir);
  if (objects.length === 0) return `${output.path ?? "its file"} is not in ${place.outputDir}`;
  for (const object of objects) {
    const was = recorded.find(
      (row) => row.idx === output.idx && row.target === target.url && row.part === object.part,
    );
    // A run publishes a file it has just hashed; `gwrun publish` reads each file again.
    const known =
      object.part === "file" && !options.verify && output.bytes !== null && output.sha256 !== null
        ? { bytes: output.bytes, sha256: output.sha256 }
        : undefined;
    const facts = await fileFacts(place.outputDir, object.file, known);
    if (facts !== undefined && "refused" in facts) return `not published: ${facts.refused}`;
    if (facts === undefined) {
      // Not on this host: fine if the bucket has it (a fleet's other host, a file removed).
      if (was !== undefined && !(options.verify && !(await stillThere(place, target, was))))
        continue;
      if (object.part === "file") return `${object.file} is neither on disk nor in ${target.url}`;
      continue;
    }
    if (object.sha256 !== undefined && facts.sha256 !== object.sha256)
      return `${object.file} on disk does not match its record: not published`;
    if (was !== undefined && was.sha256 === facts.sha256) {
      if (!options.verify || (await stillThere(place, target, was))) continue;
    }
    const key = objectKey(target, object.relative);
    const contentType = contentTypeOf(
      object.file,
      object.part === "file" ? output.content_type : null,
    );
    let etag: string;
    try {
      etag = await putObject(
        place.storage,
        target,
        {
          file: object.file,
          body: () => bodyOf(place.outputDir, object.file),
          key,
          ...facts,
          contentType,
        },
        options.signal,
      );
    } catch (error) {
      // An upload that failed for its own reasons leaves this output unpublished; a refusal
      // (credentials, permissions) stops the rest.
      if (error instanceof UploadFailed && !error.refused) return error.message;
      throw error;
    }
    done.push({
      job_key: output.job_key,
      idx: output.idx,
      target: target.url,
      part: object.part,
      object_key: key,
      bytes: facts.bytes,
      sha256: facts.sha256,
      etag,
      published_at: place.now(),
    });
  }
  return undefined;
}

function samePath(a: string, b: string): boolean {
  return resolveFromCwd(a) === resolveFromCwd(b);
}

async function stillThere(
  place: PublishPlace,
  target: PublishTarget,
  row: Publication,
): Promise<boolean> {
  try {
    const found = await headObject(place.storage, target, row.object_key);
    return found !== undefined && found.bytes === row.bytes && found.sha256 === row.sha256;
  } catch (error) {
    if (error instanceof UploadFailed && !error.refused) return false;
    throw error;
  }
}
