// `validate-10k-folder-rows` and `plan-10k-folder-rows`: a job editing each of 10,000 pictures
// of a folder, its rows from `rows: { files }` and, beside it, from a CSV listing the same
// files; each validated and planned (every task key) in a process of its own. Prints one JSON
// line per mode with the folder's figures against the CSV's.
// Usage: node bench/folder-rows.mjs [count]
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { benchFolder } from "./folder.mjs";

const here = import.meta.dirname;
const count = Number(process.argv[2] ?? 10_000);
const dir = benchFolder("folder-rows");

/** A 256×256 PNG of one colour, a different one for each `i`. */
function picture(i) {
  const background = { r: i % 256, g: Math.floor(i / 256) % 256, b: 128 };
  return sharp({ create: { width: 256, height: 256, channels: 3, background } })
    .png()
    .toBuffer();
}

const job = (rows) => `version: 1
name: bench
limits: { max_tasks: ${count} }
jobs:
  - id: edit
    model: acme-imagine-1.0-edit-fast
    rows: ${rows}
    prompt: "Warm late-afternoon light"
    image_urls: ["{{row.file}}"]
    label: "{{row.stem}}"
`;

/** The figures of validate-manifest.mjs for one manifest and mode, in a process of its own. */
function measure(file, label, mode) {
  const args = [path.join(here, "validate-manifest.mjs"), file, label];
  const result = spawnSync(process.execPath, mode === "plan" ? [...args, "--plan"] : args, {
    encoding: "utf8",
    maxBuffer: 1024 ** 3,
  });
  if (result.status !== 0) throw new Error(`${label}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

try {
  mkdirSync(path.join(dir, "in"));
  const lines = ["file,stem"];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, (_, k) => i + k);
    const bytes = await Promise.all(batch.map(picture));
    batch.forEach((n, k) => {
      const stem = `p${String(n).padStart(5, "0")}`;
      writeFileSync(path.join(dir, "in", `${stem}.png`), bytes[k]);
      lines.push(`in/${stem}.png,${stem}`);
    });
  }
  writeFileSync(path.join(dir, "files.csv"), `${lines.join("\n")}\n`);
  const folder = path.join(dir, "folder.yaml");
  const csv = path.join(dir, "csv.yaml");
  writeFileSync(folder, job('{ files: "in/*.png" }'));
  writeFileSync(csv, job("files.csv"));
  for (const mode of ["validate", "plan"]) {
    const label = `${mode}-10k-folder-rows`;
    const fromFolder = measure(folder, label, mode);
    const fromCsv = measure(csv, `${mode}-10k-csv-of-files`, mode);
    console.log(
      JSON.stringify({
        bench: label,
        files: count,
        tasks: fromFolder.tasks,
        wall_ms: fromFolder.wall_ms,
        peak_rss_mb: fromFolder.peak_rss_mb,
        csv_wall_ms: fromCsv.wall_ms,
        csv_peak_rss_mb: fromCsv.peak_rss_mb,
        time_vs_csv: Math.round((fromFolder.wall_ms / fromCsv.wall_ms) * 100) / 100,
        target_time_vs_csv: 2,
      }),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
