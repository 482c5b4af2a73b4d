import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../../../src/core/hash.js";
import { type PublishTarget, parsePublishTarget } from "../../../../src/manifest/index.js";
import { objectBody, openObjectStorage } from "../../../../src/publish/index.js";
import { bodyOf } from "../../../../src/publish/output-objects.js";
import { headObject, putObject, UploadFailed } from "../../../../src/publish/upload.js";
import { tempDir } from "../../../helpers/manifest.js";
import {
  type ObjectStore,
  startFaultyFront,
  startObjectStore,
} from "../../../helpers/object-storage.js";

/** Uploads against a real S3-compatible server (moto), a clip in parts. */

let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore({ bucket: "clips", auth: true });
});
afterAll(async () => {
  await s3?.close();
});

const target = parsePublishTarget("s3://clips/spring") as PublishTarget;

/** A clip-sized file of 12 MiB: three parts of a multipart upload (5 MiB each at most). */
function bigClip() {
  const body = randomBytes(12 * 1024 * 1024);
  const dir = tempDir();
  const file = path.join(dir, "clip.mp4");
  writeFileSync(file, body);
  return { file, body: () => bodyOf(dir, file), bytes: body.length, sha256: sha256(body) };
}

describe("uploads to object storage", () => {
  it("a clip past 5 MiB goes up in parts, is verified by size and sha256, and reads back whole", async () => {
    const storage = openObjectStorage(s3.env);
    try {
      const clip = bigClip();
      const key = "spring/clip/clip-r1.mp4";
      const etag = await putObject(storage, target, { ...clip, key, contentType: "video/mp4" });
      // A multipart object's ETag names its parts.
      expect(etag).toMatch(/-3"$/);
      expect(await headObject(storage, target, key)).toEqual({
        bytes: clip.bytes,
        sha256: clip.sha256,
        etag,
      });
      const { body } = await objectBody({ storage }, { target, row: { object_key: key } as never });
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      expect(sha256(Buffer.concat(chunks))).toBe(clip.sha256);
    } finally {
      storage.client.destroy();
    }
  });

  it("a part the server fails once is sent again, and the object is whole", async () => {
    const front = await startFaultyFront(s3.endpoint, 1);
    const storage = openObjectStorage({ ...s3.env, AWS_ENDPOINT_URL_S3: front.endpoint });
    try {
      const clip = bigClip();
      const key = "spring/clip/clip-r2.mp4";
      await putObject(storage, target, { ...clip, key, contentType: "video/mp4" });
      expect(front.failed).toBe(1);
      expect((await headObject(storage, target, key))?.sha256).toBe(clip.sha256);
      expect((await s3.head(key))?.bytes).toBe(clip.bytes);
    } finally {
      storage.client.destroy();
      await front.close();
    }
  });

  it("a wrong credential is refused at once, named without the secret", async () => {
    const wrong = "not-the-secret-0000";
    const storage = openObjectStorage({ ...s3.env, AWS_SECRET_ACCESS_KEY: wrong });
    try {
      const clip = bigClip();
      const failed = await putObject(storage, target, {
        ...clip,
        key: "spring/clip/refused.mp4",
        contentType: "video/mp4",
      }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(UploadFailed);
      expect((failed as UploadFailed).refused).toBe(true);
      expect((failed as UploadFailed).message).toContain("SignatureDoesNotMatch");
      expect((failed as UploadFailed).message).not.toContain(wrong);
      expect(await s3.head("spring/clip/refused.mp4")).toBeUndefined();
    } finally {
      storage.client.destroy();
    }
  });
});
