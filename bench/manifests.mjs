// Generated manifests for benchmarks: many explicit jobs across families, or one big matrix.

const JOB_LINES = [
  (i) =>
    `  - { id: img${i}, model: acme-image-2, prompt: "a ceramic mug, variant ${i}", size: "16:9", resolution: 2k }`,
  (i) =>
    `  - { id: set${i}, model: acme2.7-image, prompt: "{{product}} number ${i}", n: 2, size: "1:1", watermark: false }`,
  (i) =>
    `  - { id: vid${i}, model: acme-video-2.3, prompt: "[推进] mug ${i}", duration: 6, resolution: 768p }`,
  (i) =>
    `  - { id: txt${i}, endpoint: chat, model: acme-5, messages: [{ role: user, content: "caption ${i}" }], temperature: 0.7 }`,
];

const HEAD = "version: 1\nname: bench\nvars: { product: ceramic mug }\njobs:\n";

/** `jobs` explicit job entries, cycling through image, image-set, video and text jobs. */
export function explicitManifest(jobs) {
  const lines = [];
  for (let i = 0; i < jobs; i++) lines.push(JOB_LINES[i % JOB_LINES.length](i));
  return `${HEAD}${lines.join("\n")}\n`;
}

/** One job whose matrix expands to about `jobs` combinations. */
export function matrixManifest(jobs) {
  const side = Math.round(Math.sqrt(jobs));
  const a = Array.from({ length: side }, (_, i) => `"style ${i}"`).join(", ");
  const b = Array.from({ length: Math.round(jobs / side) }, (_, i) => `"light ${i}"`).join(", ");
  return `${HEAD}  - id: grid\n    model: acme2.7-image\n    prompt: "{{product}}, {{style}}, {{light}}"\n    matrix: { style: [${a}], light: [${b}] }\n`;
}

const ROW_KINDS = ["image", "video", "text"];

/**
 * A `rows` CSV of `rows` products (quoted names with commas) and a manifest of 3 jobs reading
 * it, one per kind of row (`where:`): an image, a clip (its duration from a cell) and a caption
 * for each row, labelled by the row's sku: `rows` tasks in all.
 */
export function rowsManifest(rows) {
  const lines = ["sku,name,kind,seconds"];
  for (let i = 0; i < rows; i++)
    lines.push(`S${i},"ceramic mug, variant ${i}",${ROW_KINDS[i % ROW_KINDS.length]},6`);
  const yaml = `version: 1
name: bench
jobs:
  - id: img
    model: acme-image-2
    rows: { file: rows.csv, where: { kind: image } }
    prompt: "a {{row.name}}"
    size: "16:9"
    resolution: 2k
    label: "{{row.sku}}"
  - id: vid
    model: acme-video-2.3
    rows: { file: rows.csv, where: { kind: video } }
    prompt: "[推进] {{row.name}}"
    duration: "{{row.seconds}}"
    resolution: 768p
    label: "{{row.sku}}"
  - id: txt
    endpoint: chat
    model: acme-5
    rows: { file: rows.csv, where: { kind: text } }
    messages: [{ role: user, content: "caption for a {{row.name}}" }]
    temperature: 0.7
    label: "{{row.sku}}"
`;
  return { yaml, csv: `${lines.join("\n")}\n` };
}
