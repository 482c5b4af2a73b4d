// docs/performance.md, rendered from the figures `npm run bench` saved in
// bench/results/latest.ndjson: what each benchmark measures, its target, and its last figures.
// Never edited by hand: bench/record.mjs writes it after every benchmark, `npm run docs` too.
import { readFileSync } from "node:fs";

export const RESULTS_FILE = "bench/results/latest.ndjson";
export const PERFORMANCE_DOC = "docs/performance.md";

/** Every benchmark, in the order `npm run bench` runs them: its command, what it measures, its target. */
const CATALOGUE = [
  [
    "validate-100k-explicit-jobs",
    "bench/run.mjs manifests",
    "`gwrun validate` of a manifest of 100,000 explicit jobs cycling through image, image-set, video and text families: `wall_ms` and `peak_rss_mb` in one process, `cli_wall_ms` through the CLI with Node's start-up.",
    "under 5 s and 300 MB.",
  ],
  [
    "plan-100k-explicit-jobs",
    "bench/run.mjs manifests",
    "`gwrun plan` of the same manifest, every task key computed (`cli_wall_ms`: `gwrun plan --json`).",
    "none of its own; it shows what the task keys add to validation.",
  ],
  [
    "validate-100k-matrix-jobs",
    "bench/run.mjs manifests",
    "`gwrun validate` of one job whose matrix expands to 100,000 combinations.",
    "under 5 s and 300 MB.",
  ],
  [
    "plan-100k-matrix-jobs",
    "bench/run.mjs manifests",
    "`gwrun plan` of the same matrix, every task key computed.",
    "none of its own.",
  ],
  [
    "validate-100k-csv-rows",
    "bench/run.mjs manifests",
    "`gwrun validate` of 3 jobs reading one 100,000-row CSV (`rows:` with `where:`, quoted cells, a number cell converted, a `label:` per row), 100,000 tasks.",
    "within 2× of validate-100k-explicit-jobs in time and memory.",
  ],
  [
    "plan-100k-csv-rows",
    "bench/run.mjs manifests",
    "`gwrun plan` of the same manifest, every task key computed.",
    "within 2× of plan-100k-explicit-jobs.",
  ],
  [
    "validate-1m-tasks",
    "bench/run.mjs manifests",
    "`gwrun validate` and `gwrun plan` (every task key) of a 1,000,000-task manifest in a process of its own, one line per manifest: one job whose matrix has a million combinations, and 3 jobs reading a 1,000,000-row CSV; `limits.max_tasks` raised to 1,000,000 as such a manifest must (100,000 unless raised). `*_time_vs_linear`: the wall time against ten times that of the 100,000-task manifest of the same kind (1.0 is linear); `load_average` is the machine's at the end.",
    "at most 1,000 MB peak memory (`validate_peak_rss_mb`, `plan_peak_rss_mb`) and a time that grows linearly (`*_time_vs_linear` at most 1.2).",
  ],
  [
    "validate-10k-folder-rows",
    "bench/run.mjs folder-rows",
    "`gwrun validate` of a job editing each of 10,000 pictures (256×256 PNG) of a folder, its rows from `rows: { files }` (each file hashed and its sides read), against the same job reading a CSV that lists the same files (`csv_wall_ms`); each picture is checked against the field's rules in both.",
    "within 2× of the CSV's time (`time_vs_csv`).",
  ],
  [
    "plan-10k-folder-rows",
    "bench/run.mjs folder-rows",
    "`gwrun plan` of the same two manifests, every task key computed.",
    "within 2× of the CSV's time.",
  ],
  [
    "sim-throughput",
    "bench/run.mjs sim",
    "Submits and task queries per second that `gwrun sim` sustains on loopback, 64 requests in flight through gwrun's own client, with the median and 99th-percentile latency.",
    "2,000 requests a second, so the simulator never limits another benchmark.",
  ],
  [
    "run-10k-images",
    "bench/run.mjs run",
    "A `gwrun run` of 10,000 image jobs against a simulator that answers at once, with no rate limit: jobs per second, HTTP requests per task (downloads included) and gwrun's peak memory. `files_in` names where the files were written (see decisions.md on disks).",
    "1,000 jobs a second, at most 2.2 requests per task and 250 MB.",
  ],
  [
    "run-rate-limited",
    "bench/run.mjs run",
    "600 jobs against a gateway limit of 50/s, below the manifest's 100/s: the submit rate achieved as a fraction of the limit, and the 429s received.",
    "at least 0.98 of the limit, no 429 after the first.",
  ],
  [
    "run-with-latency",
    "bench/run.mjs run",
    "400 images that take 15 s at the gateway, submitted at 20/s with the default poll settings, in real time: HTTP requests per task, and the wall time against the ideal N/R + L.",
    "at most 2.1 requests per task and 1.05 × the ideal.",
  ],
  [
    "run-limit-counts-polls",
    "bench/run.mjs run",
    "600 jobs of 2 s under a gateway limit of 20/s that counts every call, task queries too, announced or kept to itself, the manifest asking for the limit or twice it: 429s as a share of the calls.",
    "at most 0.5 % of the calls.",
  ],
  [
    "run-scale-sqlite",
    "bench/run.mjs run-scale",
    "`gwrun run` of 10,000, 100,000 and 300,000 small pictures on a SQLite store, against a simulator that answers at once, thumbnails off: jobs per second, gwrun's peak memory and the state database's bytes per task, each size against the smallest (`node bench/run-scale.mjs --sizes 10000,30000` for a quick look).",
    "peak memory at 300,000 tasks at most 1.5× and jobs per second at least 0.9× the 10,000-task figures (`*_vs_smallest`).",
  ],
  [
    "run-scale-pg",
    "bench/run.mjs run-scale",
    "The same runs on a PostgreSQL store: `gwrun run` records the run and works it as the fleet's one worker, the simulator in a process of its own; the database's growth per task.",
    "as run-scale-sqlite.",
  ],
  [
    "run-scale-pg-worker",
    "bench/run.mjs run-scale",
    "The same runs worked by one `gwrun worker` (its peak memory), recorded by `gwrun run --detach`.",
    "as run-scale-sqlite.",
  ],
  [
    "run-10k-dashboard-vs-no-ui",
    "bench/run.mjs ui",
    "The 10,000-job run in a 120×40 pseudo-terminal with the live dashboard, against the same run with `--quiet`; three alternating rounds, each side's best.",
    "the dashboard costs at most 10 % of the wall time.",
  ],
  [
    "postprocess",
    "bench/run.mjs postprocess",
    "Post-processing throughput on this machine's cores: checks and WebP thumbnails of 2K PNGs, ffprobe checks with poster and thumbnail of 5 s 720p clips (and with black and frozen frame detection), and `results.jsonl` with the gallery for 100,000 jobs.",
    "none stated; it shows what the checks cost beside a download.",
  ],
  [
    "renditions-1k-pictures",
    "bench/run.mjs renditions",
    "`output.renditions` of 1,000 pictures (1024×1024 PNGs) at two sizes, a 1080×1350 JPEG feed crop (attention) and a 540×960 WebP story crop (centre), each with its XMP marking, on this machine's cores: ms per picture (both renditions) and peak RSS.",
    "none stated; it shows what renditions add to a run's end.",
  ],
  [
    "view-grid-10k",
    "bench/run.mjs view",
    "The `gwrun view` grid page of a run of 10,000 outputs (half of them reviewed), timed from the request to the last byte, cold and warm, and the first thumbnail.",
    "under 1 s cold and warm (`under_1s`).",
  ],
  [
    "view-grid-300k",
    "bench/run.mjs view-scale",
    "`gwrun view` of a finished run of 300,000 outputs (one task in a hundred failed, half the outputs reviewed; bench/view-store.mjs), each request timed from the request to the last byte, the slowest of three: the grid's first and last page (1,000 outputs a page), the run page with its live counts, the progress the live page reads every 500 ms, the timeline's first page and a later page slowest first, and a failures page; `load_average` is the machine's while measured.",
    "each page under 1 s (`under_1s`).",
  ],
  [
    "report-300k",
    "bench/run.mjs view-scale",
    "The same run through the CLI: `gwrun status` and `gwrun report <run>` (results.jsonl and the gallery of the folder and of the run, the gallery capped at 5,000 task cards), with Node's start-up; the state database's bytes per task as the run wrote it (six logged moves a task) and after `gwrun prune`.",
    "`gwrun status` and `gwrun report` in seconds, not minutes; the bytes per task stated.",
  ],
  [
    "view-grid-300k-pg",
    "bench/run.mjs view-scale",
    "view-grid-300k on a PostgreSQL store (bench/view-store-pg.mjs: the same run, its tables vacuumed and analysed as autovacuum leaves them), the viewer in the bench's process as `gwrun view --store` runs it.",
    "each page under 1 s (`under_1s`).",
  ],
  [
    "report-300k-pg",
    "bench/run.mjs view-scale",
    "report-300k on the same PostgreSQL store, the CLI naming it by GWRUN_STORE; the bytes per task are the whole database's (`pg_database_size`), its indexes and free space included.",
    "`gwrun status` and `gwrun report` in seconds, not minutes; the bytes per task stated.",
  ],
  [
    "cli-startup",
    "bench/run.mjs startup",
    "What a command costs before it does anything, through `bin/gwrun.js` (bench/startup.mjs): the CPU of `gwrun --version`, of `gwrun status` of the demo's finished run and of `gwrun validate` of the demo manifest, the mean of 10 processes each (`*_cpu_ms`, Node's own start-up included), and the files Node loads for each, gwrun's own (`*_own_files`, from `dist/`) and its packages' (`*_package_files`).",
    "gwrun's own code loaded from a few files (at most 40), not one file per module: Node's start-up is most of what `gwrun --version` and `gwrun status` cost.",
  ],
  [
    "fleet-rate",
    "bench/fleet.mjs rate",
    "Four `gwrun worker`s on one PostgreSQL store against a gateway limit (20/s with 2 s tasks, and 100/s with none): steady submits as a fraction of the limit, the busiest second at the gateway, 429s and each worker's share of the submits.",
    "at least 0.98 of the limit, at most the limit + 1 in any second, at most 0.5 % 429s, each share 0.25 ± 30 %.",
  ],
  [
    "fleet-limit-counts-polls",
    "bench/fleet.mjs limit-counts-polls",
    "Three workers under a gateway limit of 20/s that counts every call, task queries too, announced or kept to itself, 600 tasks of 2 s: 429s as a share of the calls, and the run's wall time against the bound its calls allow, (submits + queries) / 20 + 2 s.",
    "at most 0.5 % of the calls; a wall time at most 1.1 × the bound.",
  ],
  [
    "fleet-kill-trial",
    "bench/fleet.mjs kill",
    "One trial of kill -9 of a random worker (each on a host of its own) with 2 % of submit answers lost: what each trial found.",
    "see `fleet-kill`.",
  ],
  [
    "fleet-kill",
    "bench/fleet.mjs kill",
    "The kill trials in sum: recorded task ids submitted again, repeats beyond the counted unknown outcomes, lost tasks, partial files left, task ids issued and never recorded.",
    "0 of each (`failed` 0).",
  ],
  [
    "fleet-leader",
    "bench/fleet.mjs leader",
    "kill -9 of the poll leader (lease 6 s): the next batch poll by its successor, and when its claims are resolved.",
    "next batch poll within 3 s; claims resolved within the lease + 10 s.",
  ],
  [
    "fleet-scale",
    "bench/fleet.mjs scale",
    "One, two and four workers on 2 s tasks, four download slots each: the speed-up over one worker and HTTP requests per task.",
    "at least 1.8× with two and 3.2× with four; at most 2.1 requests per task.",
  ],
  [
    "fleet-pg-10k",
    "bench/fleet.mjs pg-10k",
    "10,000 tasks worked by two workers with no gateway latency (8 submit jobs and 16 download slots each: together what the one process has, 16 submits and the manifest's 32 downloads), and the same 10,000 by one `gwrun run` process (SQLite) just before and after: jobs per second of each, the fleet's share of the one process's, statements per task, time to record the run, peak memory per worker.",
    "half the jobs a second of one `gwrun run` process measured beside it (`fleet_over_single` 0.5), and 250 MB per worker.",
  ],
  [
    "fleet-budget-claims",
    "bench/fleet.mjs budget-claims",
    "The claim statement of a worker's submit job (ten tasks) on a run of 10,000 and of 300,000 tasks done, in a store that also holds 100,000 tasks of an earlier run: milliseconds a claim within a budget (`max_cost` far from spent) and without one, the mean of 200.",
    "see `fleet-budget-claims-cost`.",
  ],
  [
    "fleet-budget-claims-cost",
    "bench/fleet.mjs budget-claims",
    "A claim within a budget against one without, on each run: what counting the budget adds to a claim.",
    "at most 1.5× on either run (`within_over_without`).",
  ],
];

const ORDER = new Map(CATALOGUE.map(([name], index) => [name, index]));

/** Lines of the results file: one JSON object per benchmark line. */
export function parseResults(text) {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

export function readResults(file = RESULTS_FILE) {
  try {
    return parseResults(readFileSync(file, "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") return [];
    throw error;
  }
}

/** Catalogue order; a benchmark the catalogue does not know goes last, by name. */
const rank = (line) => ORDER.get(line.bench) ?? CATALOGUE.length;
export function sortResults(lines) {
  return [...lines].sort(
    (a, b) =>
      rank(a) - rank(b) || (rank(a) === CATALOGUE.length ? a.bench.localeCompare(b.bench) : 0),
  );
}

const cell = (value) => {
  if (value === undefined) return "";
  const text = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  return `\`${text.replaceAll("|", "\\|").replaceAll("`", "'")}\``;
};

/** One column per measured line, one row per figure. */
function figuresTable(lines) {
  const keys = [...new Set(lines.flatMap((line) => Object.keys(line)))].filter(
    (key) => key !== "bench" && key !== "measured",
  );
  const head =
    lines.length === 1 ? ["figure", "value"] : ["figure", ...lines.map((_, i) => `#${i + 1}`)];
  const rows = keys.map(
    (key) => `| ${key} | ${lines.map((line) => cell(line[key])).join(" | ")} |`,
  );
  const when = [
    ...new Set(
      lines.map(({ measured: m }) =>
        m === undefined ? "unknown" : `${m.date} at commit ${m.commit} on ${m.machine}`,
      ),
    ),
  ];
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows,
    "",
    `Measured ${when.join("; ")}.`,
  ].join("\n");
}

/** The whole page from the results file's lines, ending in one newline. */
export function renderPerformance(results) {
  const byBench = new Map();
  for (const line of sortResults(results))
    byBench.set(line.bench, [...(byBench.get(line.bench) ?? []), line]);
  const known = CATALOGUE.map(([name, command, what, target]) => ({ name, command, what, target }));
  const unknown = [...byBench.keys()].filter((name) => !ORDER.has(name));
  const sections = [
    ...known,
    ...unknown.map((name) => ({
      name,
      command: "",
      what: "Not described in bench/performance-doc.mjs.",
      target: "not stated.",
    })),
  ].map(({ name, command, what, target }) => {
    const lines = byBench.get(name);
    return [
      `## ${name}`,
      "",
      `${what} Target: ${target}${command === "" ? "" : ` Run by \`node bench/record.mjs ${command}\`.`}`,
      "",
      lines === undefined ? "_Not measured in this file._" : figuresTable(lines),
    ].join("\n");
  });
  const measured = known.filter(({ name }) => byBench.has(name)).length;
  return `${[
    "# Performance",
    "",
    `Generated from \`${RESULTS_FILE}\` by \`npm run docs\` (and after every benchmark); do not edit by hand.`,
    "`npm run bench` runs every benchmark and saves its JSON lines there, each with the date, the",
    "commit and the machine it was measured on; `node bench/record.mjs bench/<file>.mjs [args]` runs",
    "one and replaces only its own lines. A benchmark without lines in the file says so.",
    `This file holds figures of ${measured} of the ${known.length} benchmarks.`,
    "[decisions.md](decisions.md) tells what earlier measurements led to.",
    "",
    ...sections.flatMap((text) => [text, ""]),
  ]
    .join("\n")
    .trimEnd()}\n`;
}
