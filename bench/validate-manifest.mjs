// Validates one manifest file in this process as `gwrun validate` does (or plans it with task
// keys, as `gwrun plan` does, with --plan) and prints one JSON line: wall time from reading the
// file to the result, and the process's peak memory.
// Usage: node bench/validate-manifest.mjs <manifest> <label> [--plan]
import { performance } from "node:perf_hooks";
import { checkManifestFile } from "../dist/families/check-manifest.js";
import { planRun } from "../dist/plan/plan.js";

const [file, label, mode] = process.argv.slice(2);
const start = performance.now();
const checked = await checkManifestFile(file, {});
if (!checked.valid) throw new Error(`${file} is invalid: ${checked.diagnostics[0]?.message}`);
const plan = planRun(file, checked.expanded.settings, checked.jobs, { keys: mode === "--plan" });
const wallMs = performance.now() - start;
console.log(
  JSON.stringify({
    bench: label,
    jobs: checked.expanded.specs.length,
    tasks: plan.totals.tasks,
    wall_ms: Math.round(wallMs),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    // The target this machine must meet when validating (gwrun validate).
    ...(mode === "--plan" ? {} : { target: { wall_ms: 5000, peak_rss_mb: 300 } }),
  }),
);
