// `npm run bench`: every benchmark runs in a process of its own, so its peak memory is its
// own, and prints one JSON line of figures.
// Usage: node bench/run.mjs [manifests|folder-rows|sim|run|run-scale|ui|postprocess|renditions|view|view-scale|startup ...]
// (none: every part).
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { benchFolder } from "./folder.mjs";
import { explicitManifest, matrixManifest, rowsManifest } from "./manifests.mjs";

const here = import.meta.dirname;
const root = path.dirname(here);
const dir = benchFolder("manifests");
let failed = false;

const PARTS = [
  "manifests",
  "folder-rows",
  "sim",
  "run",
  "run-scale",
  "ui",
  "postprocess",
  "renditions",
  "view",
  "view-scale",
  "startup",
];
const chosen = process.argv.slice(2);
for (const part of chosen)
  if (!PARTS.includes(part)) {
    console.error(`unknown part ${part}; parts: ${PARTS.join(", ")}`);
    process.exit(2);
  }
const runs = (part) => chosen.length === 0 || chosen.includes(part);

function node(args) {
  // `gwrun plan --json` of 100k tasks prints megabytes: past spawnSync's default buffer it
  // would be killed and counted as failed.
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1024 ** 3,
  });
  if (result.status !== 0) {
    failed = true;
    process.stderr.write(
      `${args.join(" ")}: ${result.error?.message ?? `exit ${result.status}`}\n`,
    );
    process.stderr.write(result.stderr);
  }
  return result;
}

/** Figures of the 100k manifests by bench name, for the million-task ones to compare with. */
const measured = new Map();

/** This process's own figures for `gwrun validate` (or plan) of a manifest file. */
function inProcess(file, label, mode) {
  const args = [path.join(here, "validate-manifest.mjs"), file, label];
  return JSON.parse(node(mode === "plan" ? [...args, "--plan"] : args).stdout || "{}");
}

/**
 * `validate-1m-tasks`: a matrix of a million combinations and a CSV of a million rows, each
 * validated and planned (every key) in a process of its own, `limits.max_tasks` raised as a
 * manifest of that size must; time beside ten times the 100k manifest's, to show it linear.
 */
function millionTasks() {
  const folder = path.join(dir, "1m");
  mkdirSync(folder);
  const raise = (text) => text.replace("jobs:\n", "limits: { max_tasks: 1000000 }\njobs:\n");
  const rows = rowsManifest(1_000_000);
  writeFileSync(path.join(folder, "rows.csv"), rows.csv);
  for (const [kind, text, small] of [
    ["matrix", matrixManifest(1_000_000), "100k-matrix-jobs"],
    ["csv-rows", rows.yaml, "100k-csv-rows"],
  ]) {
    const file = path.join(folder, `${kind}.yaml`);
    writeFileSync(file, raise(text));
    const validated = inProcess(file, "validate-1m-tasks", "validate");
    const planned = inProcess(file, "plan-1m-tasks", "plan");
    const ratio = (big, mode) => {
      const base = measured.get(`${mode}-${small}`);
      return base === undefined || base.wall_ms === 0
        ? null
        : Math.round((big.wall_ms / (base.wall_ms * (big.tasks / base.tasks))) * 100) / 100;
    };
    console.log(
      JSON.stringify({
        bench: "validate-1m-tasks",
        manifest: kind,
        tasks: validated.tasks,
        validate_ms: validated.wall_ms,
        validate_peak_rss_mb: validated.peak_rss_mb,
        plan_ms: planned.wall_ms,
        plan_peak_rss_mb: planned.peak_rss_mb,
        // 1.0: a million tasks took ten times what 100,000 did.
        validate_time_vs_linear: ratio(validated, "validate"),
        plan_time_vs_linear: ratio(planned, "plan"),
        load_average: Math.round(loadavg()[0] * 10) / 10,
        target: { peak_rss_mb: 1000, time_vs_linear: 1.2 },
      }),
    );
  }
}

try {
  const rows = rowsManifest(100_000);
  // The CSV sits beside its manifest, where `rows: rows.csv` finds it.
  writeFileSync(path.join(dir, "rows.csv"), rows.csv);
  const manifests = [
    ["100k-explicit-jobs", explicitManifest(100_000)],
    ["100k-matrix-jobs", matrixManifest(100_000)],
    ["100k-csv-rows", rows.yaml],
  ];
  for (const [label, text] of runs("manifests") ? manifests : []) {
    const file = path.join(dir, `${label}.yaml`);
    writeFileSync(file, text);
    for (const mode of ["validate", "plan"]) {
      const args = [path.join(here, "validate-manifest.mjs"), file, `${mode}-${label}`];
      const figures = JSON.parse(node(mode === "plan" ? [...args, "--plan"] : args).stdout || "{}");
      // The same through the CLI, including Node's start-up and module loading.
      const start = performance.now();
      node(["bin/gwrun.js", mode, file, ...(mode === "plan" ? ["--json"] : [])]);
      figures.cli_wall_ms = Math.round(performance.now() - start);
      figures.manifest_mb = Math.round(statSync(file).size / 1e5) / 10;
      if (label === "100k-csv-rows")
        figures.csv_mb = Math.round(statSync(path.join(dir, "rows.csv")).size / 1e5) / 10;
      console.log(JSON.stringify(figures));
      measured.set(`${mode}-${label}`, figures);
    }
  }
  if (runs("manifests")) millionTasks();
  const scripts = {
    "folder-rows": "folder-rows.mjs",
    sim: "sim-throughput.mjs",
    run: "run-throughput.mjs",
    "run-scale": "run-scale.mjs",
    ui: "ui-overhead.mjs",
    postprocess: "postprocess.mjs",
    renditions: "renditions.mjs",
    view: "view-grid.mjs",
    "view-scale": "view-scale.mjs",
    startup: "startup.mjs",
  };
  for (const [part, script] of Object.entries(scripts))
    if (runs(part)) process.stdout.write(node([path.join(here, script)]).stdout);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
