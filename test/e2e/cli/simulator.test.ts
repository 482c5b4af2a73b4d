import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunAsync } from "../../helpers/cli.js";
import { withRun } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

/** Item 6: a run that talks to the built-in simulator says so wherever it is seen. */

/** No GW_BASE_URL: the README's `${GW_BASE_URL:-sim}` falls back to the simulator. */
const ENV = { GW_API_KEY: "k", GWRUN_SIM_TIME_SCALE: "3600" };

const settings = (outputDir: string) => `version: 1
name: shots
gateway: { base_url: "\${GW_BASE_URL:-sim}" }
poll: { first_after: 1s, every: 1s }
output: { dir: ${JSON.stringify(outputDir)}, thumbnails: false }
`;
const JOB = `jobs:
  - { id: hero, model: acme2.7-image, prompt: "A mug", size: "1024x1024" }
`;

/** The lines gwrun itself writes (the gallery line is the summary's own continuation). */
const gwrunLines = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((line) => !/^\S+Z gallery: /.test(line));

describe("the simulator is never silent", () => {
  it("every plain line, the start line, the summary and --json's run:started name the simulator", async () => {
    await withRun({ seed: "sim-said" }, async (scope) => {
      const manifest = scope.write("shots.yaml", `${settings(scope.outputDir)}${JOB}`);
      const run = (...flags: string[]) =>
        gwrunAsync([manifest, "--db", scope.db, ...flags], { cwd: scope.dir, env: ENV }).done;
      const plain = await run();
      expect(plain.code, plain.stderr).toBe(0);
      const lines = gwrunLines(plain.stderr);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line).toMatch(/^\S+Z gwrun \(simulator\): /);
      expect(lines[0]).toMatch(
        /run 1: 1 job, 1 task, 0 already done; against the built-in simulator: stand-in outputs, no real money$/,
      );
      expect(lines.at(-1)).toMatch(
        /run 1 done after .*; outputs in \S+; against the built-in simulator: stand-in outputs, no real money$/,
      );
      const quiet = await run("--quiet");
      expect(gwrunLines(quiet.stderr)).toEqual([
        expect.stringMatching(/^\S+Z gwrun \(simulator\): run 2 done .*no real money$/),
      ]);
      const json = await run("--json");
      const [first] = json.stdout.split("\n");
      expect(JSON.parse(first ?? "{}")).toMatchObject({ type: "run:started", simulator: true });
      // The same manifest against a gateway named by URL is not marked.
      const real = await scope.gwrun([manifest, "--json"]).done;
      expect(JSON.parse(real.stdout.split("\n")[0] ?? "{}")).toMatchObject({ simulator: false });
      const named = await scope.gwrun([manifest]).done;
      expect(named.stderr).not.toContain("simulator");
    });
  });

  it("a scheduled manifest left on the simulator warns at every tick, naming the variable it lacks", async () => {
    await withRun({ seed: "sim-ticks" }, async (scope) => {
      const write = (cron: string) =>
        scope.write(
          "daily.yaml",
          `${settings(`${scope.outputDir}/{tick}`)}schedule: { cron: "${cron}", timezone: UTC }\n${JOB}`,
        );
      const manifest = write("0 6 * * *");
      const warning = (tick: string) =>
        `gwrun (simulator): warning: tick ${tick} of shots runs against the built-in simulator (GW_BASE_URL is not set, so base_url "\${GW_BASE_URL:-sim}" falls back to sim): stand-in outputs, no real money`;
      for (const [at, tick] of [
        ["2026-11-23T06:00Z", "2026-11-23T0600"],
        ["2026-11-24T06:00Z", "2026-11-24T0600"],
      ] as const) {
        const ran = await gwrunAsync([manifest, "--db", scope.db, "--quiet", "--at", at], {
          cwd: scope.dir,
          env: ENV,
        }).done;
        expect(ran.code, ran.stderr).toBe(0);
        // Even --quiet, which prints only failures and the summary, says it first.
        expect(ran.stderr.split("\n")[0]).toBe(warning(tick));
      }
      // The scheduler says it at each tick it runs, in its log (a database of its own: the
      // ticks above are long past, and it would record every second since as missed).
      write("* * * * * *");
      const log = path.join(scope.dir, "schedule.log");
      const db = path.join(scope.dir, "schedule.db");
      const daemon = gwrunAsync(["schedule", manifest, "--db", db, "--log", log], {
        cwd: scope.dir,
        env: ENV,
      });
      const warned = () =>
        existsSync(log)
          ? (readFileSync(log, "utf8").match(/shots: \(simulator\) warning: tick /g) ?? []).length
          : 0;
      // Ends at the second warning; a busy machine starts the daemon slowly.
      await until("the second warning", () => warned() >= 2, { timeoutMs: 50_000 }).catch(() => {});
      daemon.child.kill("SIGTERM");
      expect((await daemon.done).code).toBe(0);
      expect(warned()).toBeGreaterThanOrEqual(2);
      expect(readFileSync(log, "utf8")).toMatch(
        /shots: \(simulator\) warning: tick \S+ of shots runs against the built-in simulator \(GW_BASE_URL is not set/,
      );
    });
  });
});
