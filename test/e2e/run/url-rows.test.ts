import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startSimulator } from "../../../src/sim/index.js";
import { gwrunHere } from "../../helpers/cli.js";
import { testDatabase } from "../../helpers/postgres.js";
import { closedPort, startProxy } from "../../helpers/proxy.js";
import { FAST, fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { type SheetServer, startSheetServer } from "../../helpers/sheet-server.js";
import { STORE_KINDS } from "../../helpers/store.js";

/**
 * Through the CLI against the simulator: rows from a sheet published on a web server on
 * loopback, fetched when the manifest is checked and kept with the run that read them.
 */

const HEADER = "sku,name\n";
const ROWS = ["A1,mug", "B2,bowl", "C3,plate", "D4,teapot"];

/** The sheet's text with its first `count` rows. */
const sheet = (count: number) => `${HEADER}${ROWS.slice(0, count).join("\n")}\n`;

/** Publishes the sheet with its first `count` rows at /sheet (a published sheet's path has no extension). */
function publish(server: SheetServer, count: number): void {
  server.routes.set("/sheet", { body: sheet(count), type: "text/csv; charset=utf-8" });
}

/** A manifest of one task per row of the sheet at `url`. */
function manifest(scope: RunScope, url: string, settings = fastSettings(scope.outputDir)): string {
  return scope.write(
    "sheet.yaml",
    `${settings}name: sheet
jobs:
  - id: shots
    model: acme2.7-image
    rows: "${url}"
    prompt: "A {{row.name}} on an oak table"
    size: "1:1"
    label: "{{row.sku}}"
`,
  );
}

/** The line of a manifest's `rows:`. */
function rowsLine(file: string): number {
  return (
    readFileSync(file, "utf8")
      .split("\n")
      .findIndex((line) => line.includes("rows:")) + 1
  );
}

async function plannedStatuses(scope: RunScope, file: string): Promise<Record<string, string>> {
  const result = await scope.gwrun(["plan", file, "--json"]).done;
  expect(result.code, result.stderr).toBe(0);
  const plan = JSON.parse(result.stdout) as { tasks: { label: string; status: string }[] };
  return Object.fromEntries(plan.tasks.map((task) => [task.label, task.status]));
}

async function withSheets<T>(fn: (server: SheetServer) => Promise<T>): Promise<T> {
  const server = await startSheetServer();
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

describe.each(STORE_KINDS)("rows from a URL (%s)", (kind) => {
  it("plans and pays the rows a published sheet holds; a row added later is one new task, and each run keeps the body it read", async () => {
    const store = kind === "postgres" ? await testDatabase({ schema: true }) : undefined;
    await withSheets(async (server) => {
      await withRun(
        { seed: "sheet" },
        async (scope) => {
          publish(server, 3);
          const file = manifest(scope, `${server.url}/sheet?output=csv`);
          expect(await plannedStatuses(scope, file)).toEqual({ A1: "new", B2: "new", C3: "new" });

          const first = await scope.gwrun(["run", file]).done;
          expect(first.code, first.stderr).toBe(0);
          expect(scope.sim.counters().submits.accepted).toBe(3);

          publish(server, 4);
          expect(await plannedStatuses(scope, file)).toEqual({
            A1: "done",
            B2: "done",
            C3: "done",
            D4: "new",
          });
          const second = await scope.gwrun(["run", file]).done;
          expect(second.code, second.stderr).toBe(0);
          expect(scope.sim.counters().submits.accepted).toBe(4);

          const record = await scope.open();
          try {
            const runs = await record.runs(10);
            const kept = await Promise.all(runs.map((run) => record.rowSourcesOf(run.id)));
            expect(kept.map((sources) => sources.map((source) => source.sha256))).toEqual([
              [createHash("sha256").update(sheet(4)).digest("hex")],
              [createHash("sha256").update(sheet(3)).digest("hex")],
            ]);
            expect(kept[1]?.[0]).toMatchObject({
              url: `${server.url}/sheet?output=csv`,
              format: "csv",
              body: sheet(3),
            });
          } finally {
            await record.close();
          }
        },
        store,
      );
    });
  });
});

describe("rows from a URL", () => {
  it("an unreachable URL or an HTTP error is an error at the rows: value, its query unsaid, and nothing is paid", async () => {
    await withSheets(async (server) => {
      await withRun({ seed: "sheet-down" }, async (scope) => {
        const down = `http://127.0.0.1:${await closedPort()}/sheet.csv`;
        const file = manifest(scope, `${down}?token=not-for-messages`);
        for (const command of ["validate", "plan", "run"]) {
          const result =
            command === "validate"
              ? await gwrunHere([command, file], { cwd: scope.dir })
              : await scope.gwrun([command, file]).done;
          expect(result.code, `${command}: ${result.stderr}`).toBe(2);
          expect(result.stderr).toContain(
            `${file}:${rowsLine(file)}:11  error rows: cannot fetch ${down}?…: connection failed (ECONNREFUSED)  [rows-url]`,
          );
          expect(result.stderr).toContain(
            "hint: check the URL, and that its server is up and reachable from here",
          );
        }
        const missing = manifest(scope, `${server.url}/gone.csv?token=not-for-messages`);
        const result = await gwrunHere(["validate", missing], { cwd: scope.dir });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(
          `rows: ${server.url}/gone.csv?… answered HTTP 404  [rows-url]`,
        );
        // The frame shows the manifest's line as written, once; the messages never.
        expect(result.stderr.split("not-for-messages")).toHaveLength(2);
        expect(scope.sim.counters().submits.accepted).toBe(0);
        expect(scope.sim.counters().requests).toBe(0);
      });
    });
  });

  it("resume goes on with the rows the run recorded, not the sheet as it is now", async () => {
    await withSheets(async (server) => {
      // A balance for one task: the run stops with two of its three tasks still to send.
      await withRun({ seed: "sheet-resume", balance: 0.2 }, async (scope) => {
        publish(server, 3);
        const file = manifest(scope, `${server.url}/sheet`);
        const stopped = await scope.gwrun(["run", file]).done;
        expect(stopped.code, stopped.stderr).toBe(3);
        expect(stopped.stderr).toMatch(/balance ran out/);
        expect(scope.sim.counters().submits.accepted).toBe(1);
        const fetches = server.requests.length;

        publish(server, 4);
        const topped = await startSimulator({ timeScale: FAST, mediaVariants: 4 });
        try {
          const resumed = await gwrunHere(["resume", "--db", scope.db, "--base-url", topped.url], {
            cwd: scope.dir,
            env: { GW_API_KEY: "test-key" },
          });
          expect(resumed.code, resumed.stderr).toBe(0);
          expect(resumed.stderr).toContain(
            `gwrun: ${server.url}/sheet: the rows this run recorded (fetched `,
          );
          expect(topped.counters().submits.accepted).toBe(2);
        } finally {
          await topped.close();
        }
        // The sheet was not fetched again, and its new row is no task of the run.
        expect(server.requests).toHaveLength(fetches);
        const tasks = await scope.tasks();
        expect(tasks.map((task) => [task.label, task.state]).sort()).toEqual([
          ["A1", "done"],
          ["B2", "done"],
          ["C3", "done"],
        ]);
        // A plan of the manifest reads the sheet as it is now: its new row is new.
        expect(await plannedStatuses(scope, file)).toMatchObject({ D4: "new" });
      });
    });
  });

  it("fetches the sheet through the proxy HTTP_PROXY names", async () => {
    const proxy = await startProxy();
    try {
      await withSheets(async (server) => {
        await withRun({ seed: "sheet-proxy" }, async (scope) => {
          publish(server, 2);
          const file = manifest(scope, `${server.url}/sheet`);
          const result = await gwrunHere(["validate", file], {
            cwd: scope.dir,
            env: { HTTP_PROXY: proxy.url },
          });
          expect(result.code, result.stderr).toBe(0);
          expect(proxy.requests).toEqual(["GET /sheet"]);
          expect(proxy.tunnels).toEqual([new URL(server.url).host]);
          expect(server.requests).toEqual(["GET /sheet"]);
        });
      });
    } finally {
      await proxy.close();
    }
  });
});
