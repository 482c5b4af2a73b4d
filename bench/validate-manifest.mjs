// Validates one manifest file in this process as `gwrun validate` does (or, with --plan, also
// makes every task with its key, page by page, as `gwrun run` records them) and prints one JSON
// line: wall time from reading the file to the result, and the process's peak memory.
// Usage: node bench/validate-manifest.mjs <manifest> <label> [--plan]
import { performance } from "node:perf_hooks";
import { checkedJobs, checkManifestFile } from "../dist/families/check-manifest.js";
import { PlanCounter, upstreamsPicked } from "../dist/plan/plan.js";
import { taskPages } from "../dist/plan/task-pages.js";

const [file, label, mode] = process.argv.slice(2);
const start = performance.now();
let counter;
const checked = await checkManifestFile(file, {}, Date.now(), {
  hold: "templates",
  observe: (job, specs) => {
    counter ??= new PlanCounter(upstreamsPicked(specs));
    counter.add(job);
  },
});
if (!checked.valid) throw new Error(`${file} is invalid: ${checked.diagnostics[0]?.message}`);
const plan = counter.plan(file, checked.expanded.settings);
let keyed = 0;
if (mode === "--plan")
  for await (const page of taskPages(checkedJobs(checked))) keyed += page.length;
const wallMs = performance.now() - start;
console.log(
  JSON.stringify({
    bench: label,
    jobs: checked.expanded.specs.length,
    tasks: plan.totals.tasks,
    ...(mode === "--plan" ? { keyed } : {}),
    wall_ms: Math.round(wallMs),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    // The target this machine must meet when validating (gwrun validate).
    ...(mode === "--plan" ? {} : { target: { wall_ms: 5000, peak_rss_mb: 300 } }),
  }),
);
