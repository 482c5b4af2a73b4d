// `npm run bench`: every benchmark runs in a process of its own, so its peak memory is its
// own, and prints one JSON line of figures.
// Usage: node bench/run.mjs [manifests|sim|run|run-scale|ui|postprocess|view ...] (none: every
// part).
import { spawnSync } from "node:child_process";
import { rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { benchFolder } from "./folder.mjs";
import { explicitManifest, matrixManifest, rowsManifest } from "./manifests.mjs";

const here = import.meta.dirname;
const root = path.dirname(here);
const dir = benchFolder("manifests");
let failed = false;

const PARTS = ["manifests", "sim", "run", "run-scale", "ui", "postprocess", "view"];
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
    }
  }
  const scripts = {
    sim: "sim-throughput.mjs",
    run: "run-throughput.mjs",
    "run-scale": "run-scale.mjs",
    ui: "ui-overhead.mjs",
    postprocess: "postprocess.mjs",
    view: "view-grid.mjs",
  };
  for (const [part, script] of Object.entries(scripts))
    if (runs(part)) process.stdout.write(node([path.join(here, script)]).stdout);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
