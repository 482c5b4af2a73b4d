import { describe, expect, it } from "vitest";
import { exitsWithin, fleetManifest, runEnded, withFleet } from "../../helpers/fleet.js";

/** Two `gwrun worker`s on one PostgreSQL store hold one budget across runs between them. */

describe("gwrun worker and budgets across runs", () => {
  it("two workers stop a run at the day's budget, having sent no more than it allows", async () => {
    await withFleet({}, async (fleet) => {
      const set = await fleet.gwrun(["budget", "set", "0.4", "--per", "day"]);
      expect(set.code, set.stderr).toBe(0);
      const manifest = fleet.write(
        "fleet.yaml",
        fleetManifest(fleet.outputDir, 12).replace(
          "limits: {",
          "limits: { unknown_cost: 0.1, max_cost: 10,",
        ),
      );
      expect((await fleet.record(manifest)).code).toBe(0);
      const workers = [fleet.worker(), fleet.worker()];
      expect(await runEnded(fleet.db)).toBe("stopped");
      const { rows } = await fleet.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE submitted_at IS NOT NULL",
      );
      expect(rows[0]?.n).toBe(4);
      const { rows: run } = await fleet.db.query<{ stop_reason: string | null; halt: string }>(
        "SELECT stop_reason, halt FROM runs WHERE id = 1",
      );
      expect(run[0]?.halt).toBe("budget");
      const status = await fleet.gwrun(["budget", "--json"]);
      expect(JSON.parse(status.stdout)).toMatchObject([{ limit: 0.4, spent: 0.4, remaining: 0 }]);
      for (const worker of workers) {
        worker.child.kill("SIGTERM");
        expect((await exitsWithin(worker, 15_000)).code).toBe(0);
      }
    });
  }, 45_000);
});
