import { describe, expect, it } from "vitest";
import { openStoreOf, STORE_KINDS } from "../../helpers/store.js";

/** The bodies of `rows:` URLs a run read, kept with it, on both adapters. */

const SHEET = {
  url: "https://sheets.example/pub?output=csv",
  format: "csv",
  sha256: "a".repeat(64),
  body: "sku,name\nA1,mug\n",
  fetched_at: 1_700_000_000_000,
};

describe.each(STORE_KINDS)("rows kept of URLs (%s)", (kind) => {
  it("keeps each URL's body once per run, gives them back by URL, and forgets them with the run", async () => {
    const { store, runId } = await openStoreOf(kind);
    try {
      const other = await store.createRun({
        name: "t",
        manifest_path: "/m.yaml",
        manifest_text: "version: 1",
        base_url: "sim",
        output_dir: "/out",
        started_at: 2,
      });
      const tsv = { ...SHEET, url: "http://127.0.0.1:8080/b.tsv", format: "tsv", body: "a\tb\n" };
      await store.recordRowSources(runId, [SHEET, tsv]);
      // A run continued with a sheet that changed keeps the body it first read.
      await store.recordRowSources(runId, [{ ...SHEET, sha256: "b".repeat(64), body: "new" }]);
      await store.recordRowSources(other, [{ ...SHEET, body: "x".repeat(3_000_000) }]);
      expect(await store.rowSourcesOf(runId)).toEqual([tsv, SHEET]);
      expect((await store.rowSourcesOf(other))[0]?.body).toHaveLength(3_000_000);
      expect(await store.rowSourcesOf(other + 1)).toEqual([]);

      await store.deleteRun(runId);
      expect(await store.rowSourcesOf(runId)).toEqual([]);
      expect(await store.rowSourcesOf(other)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
