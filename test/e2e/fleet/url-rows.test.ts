import { describe, expect, it } from "vitest";
import { exitsWithin, runEnded, statesOf, withFleet } from "../../helpers/fleet.js";
import { startSheetServer } from "../../helpers/sheet-server.js";

/**
 * A fleet's worker opens a run from what the store recorded: the rows of a `rows:` URL too,
 * read from the record, never fetched again on the worker's host.
 */

describe("rows from a URL in a fleet", () => {
  it("a worker works the rows the run recorded, with the sheet's server gone", async () => {
    const server = await startSheetServer({
      "/sheet.csv": { body: "sku,name\nA1,mug\nB2,bowl\nC3,plate\n", type: "text/csv" },
    });
    try {
      await withFleet({}, async (fleet) => {
        const manifest = fleet.write(
          "sheet.yaml",
          `version: 1
name: sheet
limits: { submit_rate: 200/s, max_in_flight: 40, downloads: 4 }
poll: { first_after: 50ms, every: 50ms, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output: { dir: ${JSON.stringify(fleet.outputDir)} }
jobs:
  - id: shots
    model: acme2.7-image
    rows: ${server.url}/sheet.csv
    prompt: "A {{row.name}} on an oak table"
    size: "1:1"
    label: "{{row.sku}}"
`,
        );
        const recorded = await fleet.record(manifest);
        expect(recorded.code, recorded.stderr).toBe(0);
        expect(server.requests).toEqual(["GET /sheet.csv"]);
        await server.close();

        const worker = fleet.worker();
        expect(await runEnded(fleet.db)).toBe("done");
        expect(await statesOf(fleet.db)).toEqual({ done: 3 });
        const { rows: labels } = await fleet.db.query<{ label: string }>(
          "SELECT label FROM jobs ORDER BY label",
        );
        expect(labels.map((row) => row.label)).toEqual(["A1", "B2", "C3"]);
        expect((await fleet.counters()).submits.accepted).toBe(3);
        worker.child.kill("SIGTERM");
        expect((await exitsWithin(worker, 15_000)).code).toBe(0);
      });
    } finally {
      await server.close();
    }
  }, 90_000);
});
