import { describe, expect, it } from "vitest";
import { taskLabel } from "../../../src/manifest/index.js";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

/** Rows from data files, fields of values, prompts in files, labels. */

type Checked = Awaited<ReturnType<typeof checkInline>>;

const bodies = (checked: Checked, id: string) =>
  checked.jobs.filter(({ job }) => job.spec.id === id).map(({ body }) => body);

/** "file:LINE:COL rule message" of every diagnostic of a severity, file by its base name. */
const found = (checked: Checked, severity: "error" | "warning" = "error") =>
  checked.diagnostics
    .filter((d) => d.severity === severity)
    .map((d) => `${d.file.split("/").pop()}:${d.line}:${d.col} ${d.rule} ${d.message}`);

const PRODUCTS = [
  "\uFEFFsku,name,colour,seconds",
  'PAN-01,"Copper pan, 24 cm",copper,6',
  'MUG-02,"Crème brûlée mug,',
  'two lines",cream,10',
  "KET-03,Kessel „Nordlicht“,blue,6",
  "",
].join("\r\n");

const shots = (rows: string, extra = "") => `version: 1
jobs:
  - id: shots
    model: acme-image-2
    rows: ${rows}
    prompt: "{{row.name}} in {{row.colour}}"
${extra}`;

describe("rows", () => {
  it("a CSV with a BOM, quoted commas, a line break in a cell and non-ASCII names makes one task per row", async () => {
    const checked = await checkInline(shots("products.csv"), { "products.csv": PRODUCTS });
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "shots").map((body) => body.prompt)).toEqual([
      "Copper pan, 24 cm in copper",
      "Crème brûlée mug,\r\ntwo lines in cream",
      "Kessel „Nordlicht“ in blue",
    ]);
  });

  it("rows × matrix × repeat, and where: keeps rows by field values", async () => {
    const checked = await checkInline(
      shots(
        "{ file: products.csv, where: { colour: blue } }",
        "    matrix: { size: ['1:1', '16:9'] }\n    repeat: 2\n",
      ),
      { "products.csv": PRODUCTS },
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "shots")).toEqual([
      { model: "acme-image-2", prompt: "Kessel „Nordlicht“ in blue", size: "1:1" },
      { model: "acme-image-2", prompt: "Kessel „Nordlicht“ in blue", size: "16:9" },
    ]);
    expect(checked.jobs[0]?.job.vars.row).toEqual({
      sku: "KET-03",
      name: "Kessel „Nordlicht“",
      colour: "blue",
      seconds: "6",
    });
  });

  it("TSV, JSONL, JSON arrays and inline lists are rows too, JSON values typed as written", async () => {
    const manifest = `version: 1
jobs:
  - { id: tsv, model: acme-video-2.3, rows: p.tsv, prompt: "{{row.name}}", duration: "{{row.seconds}}" }
  - { id: jsonl, model: acme-video-2.3, rows: p.jsonl, prompt: "{{row.name}}", duration: "{{row.seconds}}" }
  - { id: json, model: acme-video-2.3, rows: p.json, prompt: "{{row.name}}", duration: "{{row.seconds}}" }
  - id: inline
    model: acme-video-2.3
    rows: [{ name: mug, seconds: 10 }]
    prompt: "{{row.name}}"
    duration: "{{row.seconds}}"
`;
    const checked = await checkInline(manifest, {
      "p.tsv": "name\tseconds\na, b\t6\n",
      "p.jsonl": '{"name": "pan", "seconds": 6}\n\n{"name": "kettle", "seconds": 10}\n',
      "p.json": '[{"name": "bowl", "seconds": 6}]',
    });
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.jobs.map(({ job, body }) => [job.spec.id, body.prompt, body.duration])).toEqual([
      ["tsv", "a, b", 6],
      ["jsonl", "pan", 6],
      ["jsonl", "kettle", 10],
      ["json", "bowl", 6],
      ["inline", "mug", 10],
    ]);
  });

  it("a CSV cell that must be a number is converted, and one that is not is reported at its line and column in the CSV", async () => {
    const csv = 'sku,name,seconds\nA,pan,6\nB,mug,ten\nC,"kettle, blue",10\n';
    const checked = await checkInline(
      `version: 1
jobs:
  - id: clips
    model: acme-video-2.3
    rows: products.csv
    prompt: "{{row.name}}"
    duration: "{{row.seconds}}"
`,
      { "products.csv": csv },
    );
    expect(found(checked)).toEqual([
      'products.csv:3:7 type duration: must be a number, got "ten" (row 2, used by job "clips")',
    ]);
    expect(bodies(checked, "clips").map((body) => body.duration)).toEqual([6, 10]);
  });

  it("a bad cell after a cell with a line break is placed on its own line", async () => {
    const csv = PRODUCTS.replace(
      "KET-03,Kessel „Nordlicht“,blue,6",
      "KET-03,Kessel „Nordlicht“,blue,sechs",
    );
    const checked = await checkInline(
      shots("products.csv").replace("acme-image-2", "acme-video-2.3") +
        '    duration: "{{row.seconds}}"\n',
      { "products.csv": csv },
    );
    expect(found(checked)).toEqual([
      'products.csv:5:32 type duration: must be a number, got "sechs" (row 3, used by job "shots")',
    ]);
  });

  it("a JSONL row of the wrong type is reported at its line, at the field", async () => {
    const checked = await checkInline(
      shots("products.jsonl")
        .replace("acme-image-2", "acme-video-2.3")
        .replace(
          'prompt: "{{row.name}} in {{row.colour}}"',
          'prompt: "{{row.name}}"\n    duration: "{{row.seconds}}"',
        ),
      {
        "products.jsonl": '{"name": "pan", "seconds": 6}\n{"name": "mug", "seconds": "6"}\n',
      },
    );
    expect(found(checked)).toEqual([
      'products.jsonl:2:17 json-number duration: must be a JSON number, not the quoted string "6" (write 6 without quotes) (row 2, used by job "shots")',
    ]);
  });

  it("a value out of the family's list has the manifest's did-you-mean, at the cell", async () => {
    const checked = await checkInline(shots("p.csv", '    resolution: "{{row.resolution}}"\n'), {
      "p.csv": "name,colour,resolution\npan,red,2k\nmug,blue,3k\n",
    });
    expect(found(checked)).toEqual([
      'p.csv:3:10 enum resolution: must be one of "1k", "2k", "4k", got "3k" (did you mean "2k" or "4k"?) (row 2, used by job "shots")',
    ]);
  });

  it("a row written in the manifest that breaks a rule is reported at its value there", async () => {
    const checked = await checkInline(
      shots(
        "[{ name: pan, colour: red, size: '1:1' }, { name: mug, colour: blue, size: '16:8' }]",
        '    size: "{{row.size}}"\n',
      ),
    );
    expect(found(checked).map((line) => line.split(" size: ")[0])).toEqual([
      "manifest.yaml:5:86 size",
    ]);
    expect(found(checked)[0]).toContain('(row 2, used by job "shots")');
  });

  it("an unknown {{row.x}} names the columns that exist, with a did-you-mean", async () => {
    const checked = await checkInline(shots("products.csv").replace("row.colour", "row.color"), {
      "products.csv": PRODUCTS,
    });
    expect(found(checked)).toEqual([
      'manifest.yaml:6:30 undefined-field {{row.color}}: products.csv has no column "color" (did you mean "colour"?); its columns are sku, name, colour, seconds',
    ]);
  });

  it("a where: that keeps no rows is a warning, and the job makes no tasks", async () => {
    const checked = await checkInline(shots("{ file: products.csv, where: { colour: green } }"), {
      "products.csv": PRODUCTS,
    });
    expect(errorsOf(checked)).toEqual([]);
    expect(found(checked, "warning")).toEqual([
      'manifest.yaml:5:40 rows-empty where: keeps none of the 3 rows of products.csv, so job "shots" makes no tasks',
    ]);
    expect(checked.jobs).toEqual([]);
  });

  it("a missing data file, an unread extension and a where: on no column are errors at the job", async () => {
    const checked = await checkInline(
      `version: 1
jobs:
  - { id: a, model: acme-image-2, rows: nowhere.csv, prompt: "{{row.name}}" }
  - { id: b, model: acme-image-2, rows: sheet.xlsx, prompt: x }
  - { id: c, model: acme-image-2, rows: { file: p.csv, where: { colr: red } }, prompt: x }
`,
      { "sheet.xlsx": "", "p.csv": "colour\nred\n" },
    );
    expect(found(checked)).toEqual([
      "manifest.yaml:3:41 rows-file rows: no file nowhere.csv next to the manifest (paths are relative to its folder)",
      "manifest.yaml:4:41 rows-file rows: gwrun reads rows from .csv, .tsv, .jsonl, .json files, not sheet.xlsx",
      'manifest.yaml:5:65 unknown-column where: p.csv has no column "colr" (did you mean "colour"?); its columns are colour',
    ]);
  });

  it("a CSV row with a cell too many is reported at its line", async () => {
    const checked = await checkInline(shots("p.csv"), {
      "p.csv": "name,colour\npan,red\nmug,blue,extra\n",
    });
    expect(found(checked)).toEqual([
      'p.csv:3:1 rows-file this row has 3 cells where the header names 2 (rows of job "shots")',
    ]);
    expect(bodies(checked, "shots").map((body) => body.prompt)).toEqual(["pan in red"]);
  });
});

describe("fields of structured values", () => {
  it("{{name.field}} reads object values of vars and of the matrix", async () => {
    const checked = await checkInline(`version: 1
vars:
  product: { name: copper pan, colour: { en: copper } }
jobs:
  - id: shots
    model: acme-image-2
    matrix:
      style: [{ id: studio, words: white sweep }, { id: kitchen, words: oak counter }]
    prompt: "{{product.name}} ({{product.colour.en}}), {{style.words}}"
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "shots").map((body) => body.prompt)).toEqual([
      "copper pan (copper), white sweep",
      "copper pan (copper), oak counter",
    ]);
  });

  it("a field no value has is an error naming the fields there are", async () => {
    const checked = await checkInline(`version: 1
vars:
  product: { name: copper pan }
jobs:
  - id: shots
    model: acme-image-2
    matrix: { style: [{ id: studio }, { id: kitchen }] }
    prompt: "{{product.nme}} {{style.di}}"
`);
    expect(found(checked)).toEqual([
      'manifest.yaml:8:14 undefined-field {{product.nme}}: product has no field "nme" (did you mean "name"?); its fields are name',
      'manifest.yaml:8:30 undefined-field {{style.di}}: style has no field "di" (did you mean "id"?); its fields are id',
    ]);
  });
});

describe("prompts in files", () => {
  it("{ file: path } is a string field's text, a template like any other; x- keys hold anchors", async () => {
    const checked = await checkInline(
      `version: 1
x-base: &base
  model: acme-image-2
  size: "1:1"
vars: { product: mug }
jobs:
  - <<: *base
    id: shots
    prompt: { file: shot-prompt.txt }
`,
      { "shot-prompt.txt": "A {{product}}\non a table\n" },
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "shots")).toEqual([
      { model: "acme-image-2", size: "1:1", prompt: "A mug\non a table" },
    ]);
  });

  it("an unknown name inside the file is reported in the file; a missing file at the manifest", async () => {
    const checked = await checkInline(
      `version: 1
vars: { product: mug }
jobs:
  - id: shots
    model: acme-image-2
    prompt: { file: shot.txt }
  - id: more
    model: acme-image-2
    prompt: { file: gone.txt }
`,
      { "shot.txt": "A {{product}}\non a {{tabel}}\n" },
    );
    expect(found(checked)).toEqual([
      "manifest.yaml:9:21 include file: no file gone.txt next to the manifest (paths are relative to its folder)",
      "shot.txt:2:6 undefined-variable {{tabel}} is not defined in vars or the job's matrix",
    ]);
  });
});

describe("labels", () => {
  it("label: names each task, made safe as a file name", async () => {
    const checked = await checkInline(
      shots("p.csv", '    label: "{{row.sku}}/{{row.colour}}: .."\n'),
      { "p.csv": "sku,name,colour\nA1,pan,red\n.B2,mug,sky blue\n" },
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.jobs.map(({ job }) => taskLabel(job, 0))).toEqual(["A1-red", "B2-sky-blue"]);
  });

  it("a label too long for a file name is refused at the label", async () => {
    const long = "x".repeat(300);
    const checked = await checkInline(shots("p.csv", '    label: "{{row.name}}"\n'), {
      "p.csv": `name,colour\npan,red\n${long},blue\n`,
    });
    expect(found(checked)).toEqual([
      expect.stringMatching(
        /^manifest\.yaml:7:12 name-too-long this job's files would have names of up to \d+ bytes, over the file system's limit of 255: its longest label takes 300 bytes/,
      ),
    ]);
    expect(checked.diagnostics[0]?.hint).toBe(
      "shorten this job's label, or the ids of the jobs it follows with from:",
    );
  });

  it("labels that collide are an error naming the tasks", async () => {
    const checked = await checkInline(
      shots("p.csv", '    matrix: { size: ["1:1", "16:9"] }\n    label: "{{row.colour}}"\n'),
      { "p.csv": "name,colour\npan,red\nmug,red\n" },
    );
    expect(found(checked)).toEqual([
      'manifest.yaml:8:12 label-collision label: "red" names both (row 1, size="1:1") and (row 1, size="16:9"); "red" names both (row 1, size="1:1") and (row 2, size="1:1"); "red" names both (row 1, size="1:1") and (row 2, size="16:9"); add a value that tells them apart (a row\'s id, a matrix key)',
    ]);
  });
});
