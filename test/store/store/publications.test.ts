import { describe, expect, it } from "vitest";
import { imageTask, openStoreOf, STORE_KINDS } from "../../helpers/store.js";

/** The objects outputs were published as, on both adapters. */

describe.each(STORE_KINDS)("publications (%s)", (kind) => {
  it("records the objects an output was published as, replacing one sent again", async () => {
    const { store, runId } = await openStoreOf(kind);
    try {
      await store.recordTasks(runId, [imageTask("k1")], 1);
      const object = {
        job_key: "k1",
        idx: 0,
        target: "s3://bucket/spring",
        part: "file" as const,
        object_key: "spring/shots/k1.png",
        bytes: 5_000_000_000,
        sha256: "a".repeat(64),
        etag: '"e1"',
        published_at: 10,
      };
      await store.recordPublications([object, { ...object, part: "sidecar", bytes: 12 }]);
      await store.recordPublications([{ ...object, etag: '"e2"', published_at: 20 }]);
      expect(await store.publicationsOf("k1")).toEqual([
        { ...object, etag: '"e2"', published_at: 20 },
        { ...object, part: "sidecar", bytes: 12 },
      ]);
      expect(await store.publicationsOf("k2")).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
