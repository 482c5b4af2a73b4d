// Validates a generated manifest of N jobs in this process and prints one JSON line:
// wall time to load, expand, validate and plan, and the peak resident memory of the process.
// Usage: node bench/validate-manifest.mjs <jobs> <explicit|matrix>
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { checkManifestFile } from "../dist/plan/check-manifest.js";
import { planRun } from "../dist/plan/plan.js";

const jobs = Number(process.argv[2] ?? 100_000);
const shape = process.argv[3] ?? "explicit";

const TEMPLATES = [
  (i) => `  - { id: img${i}, model: acme-image-2, prompt: "a ceramic mug, variant ${i}", size: "16:9", resolution: 2k }`,
  (i) => `  - { id: set${i}, model: acme2.7-image, prompt: "{{product}} number ${i}", n: 2, size: "1:1", watermark: false }`,
  (i) => `  - { id: vid${i}, model: acme-video-2.3, prompt: "[推进] mug ${i}", duration: 6, resolution: 768p }`,
  (i) =>
    `  - { id: txt${i}, endpoint: chat, model: acme-5, messages: [{ role: user, content: "caption ${i}" }], temperature: 0.7 }`,
];

function manifestText() {
  const head = "version: 1\nname: bench\nvars: { product: ceramic mug }\njobs:\n";
  if (shape === "matrix") {
    const side = Math.round(Math.sqrt(jobs));
    const a = Array.from({ length: side }, (_, i) => `"style ${i}"`).join(", ");
    const b = Array.from({ length: Math.ceil(jobs / side) }, (_, i) => `"light ${i}"`).join(", ");
    return `${head}  - id: grid\n    model: acme2.7-image\n    prompt: "{{product}}, {{style}}, {{light}}"\n    matrix: { style: [${a}], light: [${b}] }\n`;
  }
  const lines = [];
  for (let i = 0; i < jobs; i++) lines.push((TEMPLATES[i % TEMPLATES.length] ?? TEMPLATES[0])(i));
  return `${head}${lines.join("\n")}\n`;
}

const dir = mkdtempSync(path.join(tmpdir(), "gwrun-bench-"));
try {
  const file = path.join(dir, "manifest.yaml");
  const text = manifestText();
  writeFileSync(file, text);
  const start = performance.now();
  const checked = await checkManifestFile(file, {});
  if (!checked.valid) throw new Error(`generated manifest is invalid: ${checked.diagnostics[0]?.message}`);
  const plan = planRun(file, checked.expanded.settings, checked.jobs);
  const wallMs = performance.now() - start;
  console.log(
    JSON.stringify({
      bench: `validate-${shape}`,
      jobs,
      tasks: plan.totals.tasks,
      manifest_bytes: text.length,
      wall_ms: Math.round(wallMs),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      target: { wall_ms: 5000, peak_rss_mb: 300 },
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
