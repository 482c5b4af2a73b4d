import { describe, expect, it } from "vitest";
import { imageTask, openStoreOf, STORE_KINDS } from "../../helpers/store.js";

/** Budgets across runs as both stores keep them, and what a period spent. */

const DAY = 86_400_000;

describe.each(STORE_KINDS)("store (%s): budgets across runs", (kind) => {
  it("sets, replaces, lists and clears a budget per gateway", async () => {
    const { store } = await openStoreOf(kind);
    const budget = {
      scope: "",
      amount: 5,
      per: "day" as const,
      timezone: "UTC",
      warn_at: null,
      set_at: 1,
    };
    await store.setBudget(budget);
    await store.setBudget({ ...budget, amount: 7, warn_at: 0.8 });
    await store.setBudget({
      ...budget,
      scope: "https://gw",
      per: "month",
      timezone: "Europe/Paris",
    });
    expect(await store.budgets()).toEqual([
      { ...budget, amount: 7, warn_at: 0.8 },
      { ...budget, scope: "https://gw", per: "month", timezone: "Europe/Paris" },
    ]);
    expect(await store.clearBudget("")).toBe(true);
    expect(await store.clearBudget("")).toBe(false);
    expect((await store.budgets()).map((each) => each.scope)).toEqual(["https://gw"]);
    await store.close();
  });

  it("counts what tasks sent in the period spent or reserve, by the run's gateway", async () => {
    const { store, runId } = await openStoreOf(kind);
    const other = await store.createRun({
      name: "u",
      manifest_path: "/n.yaml",
      manifest_text: "version: 1",
      base_url: "https://gw",
      output_dir: "/out2",
      started_at: 1,
    });
    await store.sql(`UPDATE runs SET unknown_cost = 0.5 WHERE id = ${other}`);
    const rows: [number, string, string, number | null, number | null, number, number][] = [
      // run, key, state, cost, estimate, unknown submits, submitted at
      [runId, "paid", "done", 0.2, 0.1, 0, DAY + 10],
      [runId, "flying", "processing", null, 0.3, 0, DAY + 20],
      [runId, "yesterday", "done", 0.4, null, 0, DAY - 1],
      [runId, "failed-unsent", "failed", null, 0.3, 0, DAY + 30],
      [other, "unknown", "processing", null, null, 1, DAY + 40],
      // Claimed and being sent: counted from its claim.
      [runId, "sending", "submitting", null, 0.25, 0, DAY + 50],
    ];
    for (const [run, key, state, cost, estimate, unknown, at] of rows) {
      await store.recordTasks(run, [{ ...imageTask(key), label: key, estimatedCost: estimate }], 1);
      await store.sql(
        `UPDATE jobs SET state = '${state}', cost = ${cost ?? "NULL"}, unknown_submits = ${unknown},
         submitted_at = ${state === "failed" || state === "submitting" ? "NULL" : at},
         updated_at = ${at}, paid_run = ${run} WHERE key = '${key}'`,
      );
    }
    const day = { since: DAY, until: 2 * DAY };
    // 0.2 paid, 0.3 and 0.25 reserved in flight, and the other run's task of unknown price: 0.5
    // in flight and 0.5 again for its submit of unknown outcome.
    expect(await store.periodSpend({ ...day, gateway: "" })).toBe(1.75);
    expect(await store.periodSpend({ ...day, gateway: "sim" })).toBe(0.75);
    expect(await store.periodSpend({ ...day, gateway: "https://gw" })).toBe(1);
    expect(await store.periodSpend({ since: 0, until: DAY, gateway: "" })).toBe(0.4);
    await store.close();
  });
});
