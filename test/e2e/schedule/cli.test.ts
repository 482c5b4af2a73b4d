import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, type Store } from "../../../src/store/index.js";
import { holdLeaseElsewhere } from "../../helpers/lease-holder.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

/** A scheduled manifest: one picture per tick, each tick in its own folder. */
function scheduledManifest(scope: RunScope, schedule: string, extra = ""): string {
  const settings = fastSettings(`${scope.outputDir}/{tick}`, extra);
  return scope.write(
    "daily.yaml",
    `${settings}name: daily
schedule: ${schedule}
jobs:
  - id: cover
    model: acme-image-2
    prompt: "Cover for {{date}}"
    size: "1:1"
`,
  );
}

async function inStore<T>(scope: RunScope, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(scope.db);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Waits (up to `ms`) until `file` holds `count` matches of `pattern`. */
async function waitForLines(file: string, pattern: RegExp, count: number, ms: number) {
  const matches = () =>
    existsSync(file) ? (readFileSync(file, "utf8").match(pattern)?.length ?? 0) : 0;
  await until(`${count} lines in ${file}`, () => matches() >= count, { timeoutMs: ms }).catch(
    () => {},
  );
  return matches();
}

describe("cron-friendly one-shot runs", () => {
  it("refuses politely with exit 4 while another process runs the manifest, and records the tick", async () => {
    await withRun({ seed: "busy" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 * * *", timezone: UTC }');
      const other = await holdLeaseElsewhere(scope.db, "daily", Date.now());
      try {
        const refused = await scope.gwrun(["run", manifest, "--quiet"]).done;
        expect(refused.code).toBe(4);
        expect(refused.stderr.trim()).toMatch(
          new RegExp(
            `^gwrun: daily is already running \\(process ${other.pid} on .*\\); tick \\d{4}-\\d\\d-\\d\\dT0600 not started$`,
          ),
        );
        expect(scope.sim.counters().submits.received).toBe(0);
        const [tick] = await inStore(scope, (store) => store.ticksOf("daily", 5));
        expect(tick).toMatchObject({ status: "skipped", trigger: "run" });
      } finally {
        await other.release();
      }
      const ran = await scope.gwrun(["run", manifest, "--quiet"]).done;
      expect(ran.code).toBe(0);
      // --quiet: the summary and nothing else.
      expect(ran.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(
          /^\S+Z gwrun: run 1 done after [^:]+: 1 task, 1 done; paid [\d.]+; outputs in /,
        ),
        expect.stringMatching(/^\S+Z gallery: .*index\.html; results: .*results\.jsonl$/),
      ]);
    });
  });

  it("lets only one of two runs of a scheduled manifest go ahead at a time", async () => {
    await withRun({ seed: "twice" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 * * *", timezone: UTC }');
      // The first poll comes late, so the first run (a process of its own) is still going when
      // the second asks.
      const slow = readFileSync(manifest, "utf8").replace("first_after: 20ms", "first_after: 3s");
      scope.write("daily.yaml", slow);
      const first = scope.spawn(["run", manifest, "--quiet"]);
      await until("the first run's lease", () => inStore(scope, (store) => store.leaseOf("daily")));
      const second = await scope.gwrun(["run", manifest, "--quiet"]).done;
      expect(second.code).toBe(4);
      expect(second.stderr).toMatch(/daily is already running/);
      expect((await first.done).code).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(1);
      const ticks = await inStore(scope, (store) => store.ticksOf("daily", 5));
      expect(ticks.map((t) => t.status).sort()).toEqual(["finished", "skipped"]);
      // The lease went with the run.
      expect(await inStore(scope, (store) => store.leaseOf("daily"))).toBeUndefined();
    });
  });

  it("keeps exactly keep.runs scheduled runs, with their folders, and prunes the rest", async () => {
    await withRun({ seed: "prune" }, async (scope) => {
      const manifest = scheduledManifest(
        scope,
        '{ cron: "0 6 * * *", timezone: UTC, keep: { runs: 2 } }',
      );
      for (const day of ["01", "02", "03", "04"]) {
        const run = await scope.gwrun(["run", manifest, "--quiet", "--at", `2026-11-${day}T12:00Z`])
          .done;
        expect(run.code).toBe(0);
      }
      const kept = await inStore(scope, (store) => store.scheduledRuns("daily"));
      expect(kept.map((run) => new Date(run.tick as number).toISOString())).toEqual([
        "2026-11-04T06:00:00.000Z",
        "2026-11-03T06:00:00.000Z",
      ]);
      const folders = [
        ...new Set(filesBelow(scope.outputDir).map((file) => file.split(path.sep)[0])),
      ];
      expect(folders.sort()).toEqual(["2026-11-03T0600", "2026-11-04T0600"]);
      expect(filesBelow(path.join(scope.outputDir, "2026-11-04T0600"))).toEqual(
        expect.arrayContaining([
          "cover/cover.png",
          "cover/cover.png.json",
          "index.html",
          "results.jsonl",
        ]),
      );
      // Each tick was its own task: four paid, none twice.
      expect(scope.sim.counters().submits.accepted).toBe(4);
      // Running a kept tick again pays nothing: it ran to its end, and says so.
      const again = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-04T23:00Z"])
        .done;
      expect(again.code).toBe(6);
      expect(again.stderr).toMatch(/tick 2026-11-04T0600 already done \(run 4, done\)/);
      expect(scope.sim.counters().submits.accepted).toBe(4);
    });
  });

  it("a tick already done says so and exits 6; a cron line a second early runs the coming tick", async () => {
    await withRun({ seed: "early" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 * * *", timezone: UTC }');
      const first = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-23T06:00Z"])
        .done;
      expect(first.code).toBe(0);
      // Later that day, by hand or by a second cron line: nothing to do, and it says when.
      const again = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-23T12:00Z"])
        .done;
      expect(again.code).toBe(6);
      expect(again.stderr.trim()).toBe(
        "gwrun: daily: tick 2026-11-23T0600 already done (run 1, done); next tick due at 2026-11-24T0600 UTC (2026-11-24T06:00:00.000Z); nothing was run",
      );
      expect(scope.sim.counters().submits.accepted).toBe(1);
      // The next morning's cron line fires a second early: it is that morning's run.
      const early = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-24T05:59:59Z"])
        .done;
      expect(early.code).toBe(0);
      expect(early.stderr).toMatch(/run 2 done after .*outputs in \S*2026-11-24T0600/);
      expect(scope.sim.counters().submits.accepted).toBe(2);
      const ticks = await inStore(scope, (store) => store.ticksOf("daily", 5));
      expect(ticks.map((tick) => new Date(tick.tick).toISOString())).toEqual([
        "2026-11-24T06:00:00.000Z",
        "2026-11-23T06:00:00.000Z",
      ]);
    });
  });

  it("gwrun runs and gwrun status name a scheduled run's tick in the schedule's zone; runs rounds what it paid, columns aligned", async () => {
    // The gateway charges a price with more decimals than money is shown with.
    const prices = { "acme-image-2": { per: "task", amount: 1.900826 } } as const;
    await withRun({ seed: "zoned", prices }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 * * *", timezone: Asia/Tokyo }');
      // 09:00 in Tokyo: that morning's 06:00 tick, the evening before in UTC.
      const ran = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-23T00:00Z"]).done;
      expect(ran.code, ran.stderr).toBe(0);
      const [header, row] = (await scope.gwrun(["runs"]).done).stdout.split("\n") as [
        string,
        string,
      ];
      expect(row).toMatch(/ {2}1\.90 {2,}2026-11-23T0600 {2,}\S+daily\.yaml$/);
      for (const column of ["paid", "tick", "manifest"])
        expect(row.slice(header.indexOf(column))).toMatch(/^\S/);
      expect(row.slice(header.indexOf("tick") - 2, header.indexOf("tick"))).toBe("  ");
      // gwrun status names it alike.
      const status = await scope.gwrun(["status", "1"]).done;
      expect(status.stdout).toMatch(/, tick 2026-11-23T0600\b/);
    });
  });

  it("schedule --list says a tick is due and not run yet, until a run takes it", async () => {
    await withRun({ seed: "due" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 * * *", timezone: Asia/Tokyo }');
      const before = await scope.gwrun(["schedule", "--list", manifest]).done;
      expect(before.code, before.stderr).toBe(0);
      expect(before.stdout).toMatch(
        /^ {2}due since \d{4}-\d\d-\d\dT0600 Asia\/Tokyo \(\S+Z\), not run yet: gwrun run \S*daily\.yaml runs it$/m,
      );
      const json = await scope.gwrun(["schedule", "--list", "--json", manifest]).done;
      expect(JSON.parse(json.stdout)[0].due_not_run.label).toMatch(/T0600$/);
      expect((await scope.gwrun(["run", manifest, "--quiet"]).done).code).toBe(0);
      const after = await scope.gwrun(["schedule", "--list", manifest]).done;
      expect(after.stdout).not.toContain("due since");
      expect(after.stdout).toMatch(/last ticks:\n {4}\S+T0600 {2}run +finished, exit 0/);
    });
  });

  it("a manifest with no tick due yet says when the first one is and exits 6", async () => {
    await withRun({ seed: "leap" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "0 6 29 2 *", timezone: UTC }');
      const ran = await scope.gwrun(["run", manifest, "--quiet", "--at", "2026-11-23T06:00Z"]).done;
      expect(ran.code).toBe(6);
      expect(ran.stderr.trim()).toBe(
        "gwrun: daily: no tick due yet; next tick due at 2028-02-29T0600 UTC (2028-02-29T06:00:00.000Z); nothing was run",
      );
      expect(scope.sim.counters().submits.received).toBe(0);
    });
  });
});

describe("gwrun schedule", () => {
  it("runs ticks as they come, logs to a file, stops on SIGTERM, and lists next ticks and last runs", async () => {
    await withRun({ seed: "daemon" }, async (scope) => {
      const manifest = scheduledManifest(scope, '{ cron: "*/2 * * * * *", timezone: UTC }');
      const log = path.join(scope.dir, "logs", "schedule.log");
      const daemon = scope.spawn(["schedule", manifest, "--log", log]);
      const finished = await waitForLines(
        log,
        /tick \S+ finished with exit 0 \(run \d+\)/g,
        2,
        // Two seconds apart, but a daemon and its runs start slowly on a machine busy with the
        // rest of the suite: the wait ends as soon as the second tick has finished.
        90_000,
      );
      expect(finished).toBeGreaterThanOrEqual(2);
      daemon.child.kill("SIGTERM");
      const ended = await daemon.done;
      expect(ended.code).toBe(0);
      const text = readFileSync(log, "utf8");
      expect(text).toMatch(/^\S+Z gwrun schedule: 1 manifest, state in /m);
      expect(text).toMatch(/daily: next tick due at \d{4}-\d\d-\d\dT\d{6} UTC \(\S+Z\)\n/);
      expect(text).toMatch(/daily: tick \S+ fired \(on-time\)/);
      expect(text).toMatch(/daily: run \d+ done after [^:]+: 1 task, 1 done; paid/);
      expect(text).toMatch(/gwrun schedule: stopped\n$/);
      expect(text).not.toContain("test-key");
      const list = await scope.gwrun(["schedule", "--list", manifest]).done;
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(
        /"\*\/2 \* \* \* \* \*" in UTC; overlap skip, catch_up latest, keeps all runs/,
      );
      expect(list.stdout).toMatch(/next ticks:\n {4}\d{4}-\d\d-\d\dT\d{6} {2}\S+Z\n/);
      // A tick the SIGTERM came in may be listed first, as it ended.
      expect(list.stdout, list.stdout).toMatch(
        /last ticks:\n(?: {4}.*\n)*? {4}\S+ {2}on-time {3}finished, exit 0 {2}run \d+/,
      );
      const json = await scope.gwrun(["schedule", "--list", "--json", manifest]).done;
      const [listed] = JSON.parse(json.stdout);
      expect(listed).toMatchObject({ name: "daily", running: null });
      expect(listed.next).toHaveLength(5);
      expect(listed.last).toContainEqual(
        expect.objectContaining({ status: "finished", exit_code: 0, trigger: "on-time" }),
      );
    });
  });

  it("refuses a manifest without a schedule", async () => {
    await withRun({ seed: "none" }, async (scope) => {
      const manifest = scope.write(
        "plain.yaml",
        `${fastSettings(scope.outputDir)}jobs: [{ id: a, model: acme-image-2, prompt: x }]\n`,
      );
      const result = await scope.gwrun(["schedule", manifest]).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/plain\.yaml: has no schedule:/);
    });
  });
});
