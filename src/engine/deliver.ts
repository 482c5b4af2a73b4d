import { link, rm, stat } from "node:fs/promises";
import path from "node:path";
import { readRecorded, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import type { FileWrites } from "../core/file-writes.js";
import { ensureDir, partialFile } from "../core/fs.js";
import { hashFile, partialDir, reviewPath, sidecarPath } from "../core/output-files.js";
import { isBelow } from "../core/safe-files.js";
import type { FilePlace } from "../plan/index.js";
import type { OutputCopy, OutputRow, Store, TaskRow } from "../store/index.js";
import { freeOutputPath } from "./output-names.js";

/**
 * Every output folder is a whole delivery. A task done before into another folder (a copied
 * manifest under a new name, a dated `output.dir` run again the next day) is not paid again:
 * its files are delivered into the run's folder — hard-linked where the file system allows,
 * else copied — under a name of their own there (`freeOutputPath`), each verified by its
 * hash, with its sidecar and review images, and recorded as a copy in that folder.
 */

/** What delivering needs: the store, the folder to deliver into, and where files are written. */
export interface DeliverInto {
  store: Pick<Store, "outputAt" | "recordCopies">;
  outputDir: string;
  now: number;
  files: FileWrites;
}

/**
 * Delivers the outputs of `task` whose intact file (`intact`, by index) lies outside the
 * folder, or whose copy there lacks a review image; returns the copies recorded.
 */
export async function deliverOutputs(
  task: TaskRow,
  outputs: readonly OutputRow[],
  intact: ReadonlyMap<number, FilePlace>,
  into: DeliverInto,
): Promise<OutputCopy[]> {
  const copies: OutputCopy[] = [];
  for (const output of outputs) {
    const source = intact.get(output.idx);
    if (source === undefined || output.sha256 === null) continue;
    if (isBelow(into.outputDir, source.path) && source.outputDir === null) continue;
    const file = isBelow(into.outputDir, source.path)
      ? source.path
      : await freeOutputPath(into.store, {
          outputDir: into.outputDir,
          jobId: task.job_id,
          label: task.label,
          key: task.key,
          index: output.idx,
          count: outputs.length,
          contentType: output.content_type ?? "application/octet-stream",
        });
    if (file !== source.path) await placeFile(source.path, file, output.sha256, into.files);
    // Review images from the source, else (a copy's gone) from where the file was downloaded.
    const from = [
      source,
      { path: output.path, thumbnail: output.thumbnail, poster: output.poster },
    ];
    const images = {
      thumbnail: await placeImage(
        from.map((place) => ({ image: place.thumbnail, of: place.path })),
        file,
        into,
        task,
      ),
      poster: await placeImage(
        from.map((place) => ({ image: place.poster, of: place.path })),
        file,
        into,
        task,
      ),
    };
    if (file !== source.path) {
      const record = { idx: output.idx, count: outputs.length, contentType: output.content_type };
      await placeSidecar(sidecarPath(source.path, record), sidecarPath(file, record), images, into);
    }
    copies.push({
      job_key: task.key,
      idx: output.idx,
      output_dir: into.outputDir,
      path: file,
      ...images,
      copied_at: into.now,
    });
  }
  if (copies.length > 0) await into.store.recordCopies(copies);
  return copies;
}

/** A file at `target` with the bytes of `source`: linked, else copied; checked by its hash. */
async function placeFile(
  source: string,
  target: string,
  sha256: string,
  files: FileWrites,
): Promise<void> {
  if ((await exists(target)) && (await hashFile(target)) === sha256) return;
  await ensureDir(path.dirname(target));
  await rm(target, { force: true });
  try {
    await link(source, target);
  } catch {
    // Another file system, or one without hard links.
    await files.copy(source, target);
  }
  if ((await hashFile(target)) !== sha256) {
    await rm(target, { force: true });
    throw new Error(`${target} does not match ${source} after copying it: nothing was delivered`);
  }
}

/**
 * A review image of the delivered file, named after it as post-processing names its own:
 * `<folder>/.thumbs/<job>/<name><suffix>`, from the first of `sources` still on disk (each an
 * image and the file it was made of); null when none is.
 */
async function placeImage(
  sources: readonly { image: string | null; of: string | null }[],
  file: string,
  { outputDir, files }: DeliverInto,
  task: TaskRow,
): Promise<string | null> {
  let found: { image: string; of: string } | undefined;
  for (const { image, of } of sources)
    if (image !== null && of !== null && (await exists(image))) {
      found = { image, of };
      break;
    }
  if (found === undefined) return null;
  const { image } = found;
  const stem = path.basename(found.of, path.extname(found.of));
  const suffix = path.basename(image).slice(stem.length);
  const target = reviewPath(outputDir, task.job_id, file, suffix);
  if (target === image) return image;
  await ensureDir(path.dirname(target));
  await rm(target, { force: true });
  await link(image, target).catch(() => files.copy(image, target));
  return target;
}

/**
 * The provenance record (`sidecarPath`) beside the delivered file, its review images named as
 * delivered; none where the output has no record of its own (a text's later choice).
 */
async function placeSidecar(
  source: string | null,
  target: string | null,
  images: { thumbnail: string | null; poster: string | null },
  { outputDir, files }: DeliverInto,
): Promise<void> {
  if (source === null || target === null) return;
  let sidecar: Record<string, unknown>;
  try {
    const read = await readRecorded(source, TEXT_FILE_MAX_BYTES);
    if ("problem" in read) return;
    sidecar = JSON.parse(read.bytes.toString("utf8")) as Record<string, unknown>;
  } catch {
    return;
  }
  const relative = (image: string | null) =>
    image === null ? null : path.relative(path.dirname(target), image).split(path.sep).join("/");
  const placed = {
    ...sidecar,
    ...("thumbnail" in sidecar ? { thumbnail: relative(images.thumbnail) } : {}),
    ...("poster" in sidecar ? { poster: relative(images.poster) } : {}),
  };
  const partials = partialDir(outputDir);
  await ensureDir(partials);
  await files.whole(partialFile(partials, target), target, `${JSON.stringify(placed, null, 2)}\n`);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
