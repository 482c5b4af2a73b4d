// Runs one benchmark script, passes its output through, and saves its JSON lines in
// bench/results/latest.ndjson (each with the date, the commit and the machine), replacing the
// earlier lines of the same benchmarks only; then renders docs/performance.md from the file.
// Usage: node bench/record.mjs bench/<script>.mjs [args...]
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, platform, release, totalmem } from "node:os";
import path from "node:path";
import {
  PERFORMANCE_DOC,
  RESULTS_FILE,
  readResults,
  renderPerformance,
  sortResults,
} from "./performance-doc.mjs";

const root = path.dirname(import.meta.dirname);
const [script, ...args] = process.argv.slice(2);
if (script === undefined) {
  console.error("usage: node bench/record.mjs bench/<script>.mjs [args...]");
  process.exit(2);
}

function commit() {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
    });
    // The code measured; the results file itself is left out, as each run rewrites it.
    const paths = ["--", "src", "bench", ":!bench/results"];
    const dirty = execFileSync("git", ["status", "--porcelain", ...paths], {
      cwd: root,
      encoding: "utf8",
    });
    return `${head.trim()}${dirty.trim() === "" ? "" : " (with changes)"}`;
  } catch {
    return "unknown";
  }
}

const machine = `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}), ${Math.round(totalmem() / 1024 ** 3)} GB, ${platform()} ${release()}, Node ${process.version}`;
const measured = { date: new Date().toISOString().slice(0, 10), commit: commit(), machine };

const child = spawn(process.execPath, [script, ...args], {
  cwd: root,
  stdio: ["inherit", "pipe", "inherit"],
});
let text = "";
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  text += chunk;
});
const code = await new Promise((resolve) => child.once("close", resolve));

const fresh = text
  .split("\n")
  .filter((line) => line.startsWith("{"))
  .map((line) => JSON.parse(line))
  .filter((line) => typeof line.bench === "string")
  .map((line) => ({ ...line, measured }));
if (fresh.length > 0) {
  const names = new Set(fresh.map((line) => line.bench));
  const kept = readResults(path.join(root, RESULTS_FILE)).filter((line) => !names.has(line.bench));
  const results = sortResults([...kept, ...fresh]);
  mkdirSync(path.join(root, path.dirname(RESULTS_FILE)), { recursive: true });
  writeFileSync(
    path.join(root, RESULTS_FILE),
    `${results.map((line) => JSON.stringify(line)).join("\n")}\n`,
  );
  writeFileSync(path.join(root, PERFORMANCE_DOC), renderPerformance(results));
  console.error(
    `bench: ${fresh.length} lines saved in ${RESULTS_FILE}; ${PERFORMANCE_DOC} rendered`,
  );
}
process.exitCode = code ?? 1;
