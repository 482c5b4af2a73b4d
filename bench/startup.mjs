// What a command costs before it does anything: `gwrun --version`, `gwrun status` of the demo's
// finished run, and `gwrun validate` of the demo manifest, each started 10 times through
// bin/gwrun.js: the CPU its process used (user and system, the mean), and the files Node
// loaded at its start, gwrun's own (dist/) and its packages' (node_modules/), counted once by
// a loader hook. Linux: a child's CPU is read from /proc/self/stat once it has been waited for.
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { benchFolder } from "./folder.mjs";

const root = path.dirname(import.meta.dirname);
const bin = path.join(root, "bin/gwrun.js");
const ownDist = pathToFileURL(path.join(root, "dist/")).href;
const TIMES = 10;
const TICKS_PER_S = 100;

/** CPU seconds of this process's waited-for children so far (cutime + cstime). */
function childrenCpu() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // After the command's name: state is field 3, so cutime (16) and cstime (17) sit at 13, 14.
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S;
}

const dir = benchFolder("startup");
// The demo's project: its manifests' folder, where its record is kept.
const project = path.join(dir, "manifests");
cpSync(path.join(root, "manifests"), project, { recursive: true });
const hook = path.join(dir, "loads.mjs");
const listing = path.join(dir, "loaded.txt");
// ES modules as the loader hook sees them; CommonJS ones (a package's own require calls) from
// the require cache, which every createRequire shares, at exit.
writeFileSync(
  hook,
  `import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
const listing = ${JSON.stringify(listing)};
register("data:text/javascript,${encodeURIComponent(
    `import { appendFileSync } from "node:fs"; export async function load(url, context, next) { appendFileSync(${JSON.stringify(listing)}, url + "\\n"); return next(url, context); }`,
  )}");
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => appendFileSync(listing, Object.keys(cache).map((file) => "file://" + file + "\\n").join("")));
`,
);

const COMMANDS = {
  version: ["--version"],
  status: ["status"],
  validate: ["validate", "campaign.yaml"],
};

function loadedFiles(args) {
  rmSync(listing, { force: true });
  spawnSync(process.execPath, ["--import", hook, bin, ...args], { cwd: project, encoding: "utf8" });
  const urls = new Set(readFileSync(listing, "utf8").split("\n").filter(Boolean));
  const own = [...urls].filter((url) => url.startsWith(ownDist)).length;
  const packages = [...urls].filter((url) => url.includes("/node_modules/")).length;
  return { own, packages };
}

try {
  // The demo, run once against the simulator: `status` reads its record.
  const demo = spawnSync(process.execPath, [bin, "manifests/campaign.yaml", "--quiet"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (demo.status !== 0) throw new Error(`the demo run exited ${demo.status}: ${demo.stderr}`);
  const figures = { bench: "cli-startup", runs_each: TIMES };
  for (const [name, args] of Object.entries(COMMANDS)) {
    const before = childrenCpu();
    for (let i = 0; i < TIMES; i++) {
      const result = spawnSync(process.execPath, [bin, ...args], {
        cwd: project,
        encoding: "utf8",
      });
      if (result.status !== 0)
        throw new Error(`gwrun ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
    }
    figures[`${name}_cpu_ms`] = Math.round(((childrenCpu() - before) / TIMES) * 1000);
    const { own, packages } = loadedFiles(args);
    figures[`${name}_own_files`] = own;
    figures[`${name}_package_files`] = packages;
  }
  figures.load_average = Math.round(loadavg()[0] * 10) / 10;
  console.log(JSON.stringify(figures));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
