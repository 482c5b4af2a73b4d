import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { ensureDir, partialFile } from "../core/fs.js";
import { fileMatches, hashFile, partialDir } from "../core/output-files.js";
import { type PublishTarget, parsePublishTarget } from "../manifest/index.js";
import type { OutputRow, Publication, PublishedPart, Store } from "../store/index.js";
import { type ObjectStorage, requestOf, storageProblem } from "./object-storage.js";

/**
 * Outputs read back from object storage where this host lacks their bytes: a fleet's other
 * host made them, or the local file is gone. Only objects the store recorded are read, and
 * only into the paths the store gives (never a path from the bucket).
 */

export interface ReadPlace {
  store: Pick<Store, "publicationsOf">;
  storage: ObjectStorage;
}

/** A recorded object's bytes as a stream, whole or the byte range asked for (`bytes=a-b`). */
export async function objectBody(
  place: Pick<ReadPlace, "storage">,
  found: { target: PublishTarget; row: Publication },
  range?: string,
): Promise<{ body: Readable; bytes: number; contentRange: string | undefined }> {
  try {
    const got = await requestOf(place.storage, (options) =>
      place.storage.client.send(
        new GetObjectCommand({
          Bucket: found.target.bucket,
          Key: found.row.object_key,
          ...(range === undefined ? {} : { Range: range }),
        }),
        options,
      ),
    );
    return {
      body: got.Body as Readable,
      bytes: got.ContentLength ?? found.row.bytes,
      contentRange: got.ContentRange,
    };
  } catch (error) {
    throw new Error(
      storageProblem(place.storage, `${found.target.url}: ${found.row.object_key}`, error),
    );
  }
}

/**
 * The recorded object of an output's part in whichever target it was published to (the
 * target read from the record: `gwrun view` knows no manifest).
 */
export async function recordedObject(
  store: Pick<Store, "publicationsOf">,
  key: string,
  idx: number,
  part: PublishedPart,
): Promise<{ target: PublishTarget; row: Publication } | undefined> {
  for (const row of await store.publicationsOf(key)) {
    if (row.idx !== idx || row.part !== part) continue;
    const target = parsePublishTarget(row.target);
    if (target !== undefined) return { target, row };
  }
  return undefined;
}

/**
 * Brings the published file of each output not intact on disk to its recorded path, verified
 * by its hash; returns how many were fetched. An output not published stays as it is.
 */
export async function fetchMissing(
  place: ReadPlace,
  outputs: readonly OutputRow[],
  outputDir: string,
): Promise<number> {
  let fetched = 0;
  for (const output of outputs) {
    if (output.path === null || output.sha256 === null) continue;
    if (await fileMatches(output.path, output.bytes, output.sha256)) continue;
    const found = await recordedObject(place.store, output.job_key, output.idx, "file");
    if (found === undefined || found.row.sha256 !== output.sha256) continue;
    await fetchObject(place, found, output.path, outputDir);
    fetched += 1;
  }
  return fetched;
}

async function fetchObject(
  place: ReadPlace,
  found: { target: PublishTarget; row: Publication },
  file: string,
  outputDir: string,
): Promise<void> {
  const partials = partialDir(outputDir);
  await ensureDir(partials);
  await ensureDir(path.dirname(file));
  const partial = partialFile(partials, file);
  try {
    await pipeline((await objectBody(place, found)).body, createWriteStream(partial));
    if ((await hashFile(partial)) !== found.row.sha256)
      throw new Error(
        `${found.target.url}: ${found.row.object_key} does not hold the bytes its record names`,
      );
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
}
