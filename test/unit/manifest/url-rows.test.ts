import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../src/families/check-manifest.js";
import { rowsFormatOf, shownRowsUrl } from "../../../src/manifest/index.js";
import { tempDir } from "../../helpers/manifest.js";
import { type SheetServer, startSheetServer } from "../../helpers/sheet-server.js";

/** `rows:` from a URL: read as its path, type or first line says, and checked before paying. */

type Checked = Awaited<ReturnType<typeof checkManifestFile>>;

const servers: SheetServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function sheets(routes: Parameters<typeof startSheetServer>[0]): Promise<SheetServer> {
  const server = await startSheetServer(routes);
  servers.push(server);
  return server;
}

/** A manifest of one video job per row of `rows` (YAML), checked with `env`. */
function check(rows: string, env: NodeJS.ProcessEnv = {}): Promise<Checked> {
  const dir = tempDir({
    "package.json": "{}",
    "m.yaml": `version: 1
jobs:
  - id: clips
    model: acme-video-2.3
    rows: ${rows}
    prompt: "{{row.name}}"
    duration: "{{row.seconds}}"
    label: "{{row.sku}}"
`,
  });
  return checkManifestFile(path.join(dir, "m.yaml"), env);
}

const told = (checked: Checked) =>
  checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`);
const labels = (checked: Checked) => checked.jobs.map(({ job }) => job.label);

describe("rows from a URL", () => {
  it("reads a body by the URL's extension, else its Content-Type, else its first line, else as CSV", () => {
    expect(rowsFormatOf("https://h/a.TSV?x=1", "text/csv", "a,b")).toBe("tsv");
    expect(rowsFormatOf("https://h/pub?output=csv", "text/csv; charset=utf-8", "")).toBe("csv");
    expect(rowsFormatOf("https://h/pub", "application/x-ndjson", "")).toBe("jsonl");
    expect(rowsFormatOf("https://h/pub", "text/plain", ' [{"a":1}]')).toBe("json");
    expect(rowsFormatOf("https://h/pub", undefined, '\uFEFF{"a":1}\n')).toBe("jsonl");
    expect(rowsFormatOf("https://h/pub", undefined, "a\tb\n1\t2\n")).toBe("tsv");
    expect(rowsFormatOf("https://h/pub", undefined, "a,b\n1,2\n")).toBe("csv");
  });

  it("names a URL without its credentials, query or fragment", () => {
    expect(shownRowsUrl("https://user:pw@h.example:8443/d/pub?token=t#gid=0")).toBe(
      "https://h.example:8443/d/pub?…",
    );
    expect(shownRowsUrl("http://127.0.0.1/sheet.csv")).toBe("http://127.0.0.1/sheet.csv");
  });

  it("makes a task per row kept by where:, from JSON lines its Content-Type names", async () => {
    const body = ['{"sku":"A","name":"pan","seconds":6}', '{"sku":"B","name":"mug","seconds":10}'];
    const server = await sheets({
      "/rows": { body: body.join("\n"), type: "application/x-ndjson" },
    });
    const all = await check(`${server.url}/rows`);
    expect(told(all)).toEqual([]);
    expect(labels(all)).toEqual(["A", "B"]);
    const kept = await check(`{ url: "${server.url}/rows", where: { sku: B } }`);
    expect(labels(kept)).toEqual(["B"]);
    // Each check fetches the body once, whatever the jobs reading it.
    expect(server.requests).toEqual(["GET /rows", "GET /rows"]);
  });

  it("places a body that does not parse, and a cell a field refuses, at the rows: value", async () => {
    const server = await sheets({
      "/broken.jsonl": { body: '{"sku":"A","name":"pan","seconds":6}\n{"sku": \n' },
      "/sheet.csv": { body: "sku,name,seconds\nA,pan,6\nB,mug,ten\n" },
    });
    expect(told(await check(`${server.url}/broken.jsonl?k=1`))).toEqual([
      `5:11 rows-url rows: line 2 of ${server.url}/broken.jsonl?…, read as JSON lines: not JSON: Unexpected end of JSON input (rows of job "clips")`,
    ]);
    expect(told(await check(`${server.url}/sheet.csv`))).toEqual([
      '5:11 type duration: must be a number, got "ten" (row 2, used by job "clips")',
    ]);
  });

  it("never sends a URL holding a credential, and says how to write rows from a URL", async () => {
    const server = await sheets({ "/sheet.csv": { body: "sku\nA\n" } });
    const checked = await check(`"${server.url}/sheet.csv?token=\${SHEET_TOKEN}"`, {
      SHEET_TOKEN: "tok-1234567890",
    });
    expect(told(checked)).toEqual([
      `5:11 secret-in-url rows: ${server.url}/sheet.csv?… holds the value of SHEET_TOKEN, a credential; a rows URL is sent to its server and kept in the run's record, so it must never carry one`,
    ]);
    expect(server.requests).toEqual([]);
    expect(told(await check(`{ file: "${server.url}/sheet.csv" }`))).toEqual([
      `5:19 rows-url rows: file: names a file beside the manifest; rows from a URL are written rows: { url: ${server.url}/sheet.csv }`,
    ]);
    expect(told(await check("s3://bucket/sheet.csv"))).toEqual([
      "5:11 rows-url rows: gwrun fetches rows over http:// and https:// only, not s3://bucket/sheet.csv",
    ]);
  });
});
