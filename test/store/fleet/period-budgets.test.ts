import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { BudgetRow, FleetClaim, PgStore } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { moveDatabaseClock } from "../../helpers/postgres.js";

/**
 * Budgets across runs as a fleet's claims keep them: two workers claiming at once never pass
 * the period's budget between them, and the period turns over by the database's clock.
 */

afterEach(closeFleetStores);

const DAILY: BudgetRow = {
  scope: "",
  amount: 0.3,
  per: "day",
  timezone: "UTC",
  warn_at: null,
  set_at: 1,
};

const outcomes = (claims: FleetClaim[]) =>
  claims.map((claim) => ("claimed" in claim ? "claimed" : claim.refused));

describe("a fleet's claims under a budget across runs", () => {
  it("lets two workers claiming at once take no more than the day's budget, and the next day more", async () => {
    const { stores, rows, url } = await fleet(2, 8, 0.1);
    const [a, b] = stores as [PgStore, PgStore];
    await a.setBudget(DAILY);
    const limits = { cap: 100, maxCost: undefined, unknownCost: undefined, periods: [DAILY] };
    const now = Date.now();
    // Each worker asks for three at once: six asked, three fit in 0.3.
    const [first, second] = await Promise.all([
      a.fleet.claimTasksUnderBudgets(rows.slice(0, 3), "a", limits, now),
      b.fleet.claimTasksUnderBudgets(rows.slice(3, 6), "b", limits, now),
    ]);
    const all = [...outcomes(first), ...outcomes(second)];
    expect(all.filter((outcome) => outcome === "claimed")).toHaveLength(3);
    expect(all.filter((outcome) => outcome === "period")).toHaveLength(3);
    expect(await a.periodSpend({ since: 0, until: now + 86_400_000, gateway: "" })).toBe(0.3);

    // A day later by the database's clock, the budget has room again.
    const sql = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await moveDatabaseClock(sql, 86_400_000);
    } finally {
      await sql.end();
    }
    const next = await b.fleet.claimTasksUnderBudgets(rows.slice(6, 8), "b", limits, now);
    expect(outcomes(next)).toEqual(["claimed", "claimed"]);
  });
});
