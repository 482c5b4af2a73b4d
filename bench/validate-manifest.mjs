// Validates one manifest file in this process as `gwrun validate` does, or (--plan) runs
// `gwrun plan <manifest> --json` in this process against no store, its output counted and
// dropped, and prints one JSON line: wall time from reading the file to the result, and the
// process's peak memory.
// Usage: node bench/validate-manifest.mjs <manifest> <label> [--plan]
import path from "node:path";
import { performance } from "node:perf_hooks";
import { checkManifestFile } from "../dist/families/check-manifest.js";
import { PlanCounter, upstreamsPicked } from "../dist/plan/plan.js";

const [file, label, mode] = process.argv.slice(2);
const start = performance.now();
const figures = mode === "--plan" ? await plan() : await validate();
console.log(
  JSON.stringify({
    bench: label,
    ...figures,
    wall_ms: Math.round(performance.now() - start),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    // The target this machine must meet when validating (gwrun validate).
    ...(mode === "--plan" ? {} : { target: { wall_ms: 5000, peak_rss_mb: 300 } }),
  }),
);

async function validate() {
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
  return { jobs: checked.expanded.specs.length, tasks: plan.totals.tasks };
}

/** `gwrun plan --json`, as a first plan is: no store yet, so every task is new. */
async function plan() {
  // Loaded here only: validation's figures are of the checking modules alone.
  const { main } = await import("../dist/cli/program.js");
  const none = path.join(path.dirname(file), "no-state.db");
  const write = process.stdout.write;
  // Counted as printed, none of it held: a group's `"job"` in the head, then each task row.
  let jobs = 0;
  let tasks = 0;
  let listing = false;
  process.stdout.write = (text) => {
    let rows = text;
    if (!listing) {
      // Each write is whole lines.
      const at = text.search(/^ {2}"tasks": \[/m);
      jobs += (at < 0 ? text : text.slice(0, at)).match(/^ {6}"job": /gm)?.length ?? 0;
      if (at < 0) return true;
      listing = true;
      rows = text.slice(at);
    }
    tasks += rows.match(/^ {4}\{/gm)?.length ?? 0;
    return true;
  };
  try {
    if ((await main(["plan", file, "--json", "--db", none])) !== 0) throw new Error("plan failed");
  } finally {
    process.stdout.write = write;
  }
  return { jobs, tasks, keyed: tasks };
}
