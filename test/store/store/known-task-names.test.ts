import { describe, expect, it } from "vitest";
import { imageTask, openStoreOf, STORE_KINDS } from "../../helpers/store.js";

/** A known key recorded again takes the names it is recorded under now. */

describe.each(STORE_KINDS)("a known task recorded again (%s)", (kind) => {
  it("takes its new label and variables together, so neither outlives the other", async () => {
    const { store, runId } = await openStoreOf(kind);
    try {
      await store.recordTasks(
        runId,
        [{ ...imageTask("k1"), label: "hero-e1", vars: { style: "noir" } }],
        1,
      );
      const renamed = { ...imageTask("k1"), label: "hero-e2", vars: { style: "pastel" } };
      expect((await store.recordTasks(runId, [renamed], 2)).size).toBe(0);
      expect(await store.task("k1")).toMatchObject({
        label: "hero-e2",
        vars: '{"style":"pastel"}',
      });
      // No matrix any more: no variables.
      await store.recordTasks(runId, [{ ...imageTask("k1"), label: "hero", vars: {} }], 3);
      expect(await store.task("k1")).toMatchObject({ label: "hero", vars: null });
      // A caller that does not say (a stand-in, a test) leaves them as they are.
      await store.recordTasks(runId, [{ ...imageTask("k1"), vars: { style: "clay" } }], 4);
      await store.recordTasks(runId, [imageTask("k1")], 5);
      expect(await store.task("k1")).toMatchObject({ label: "a", vars: '{"style":"clay"}' });
    } finally {
      await store.close();
    }
  });
});
