import { parse as parseCsv } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { RecordReader } from "../../../src/manifest/csv-records.js";
import { CSV_OPTIONS } from "../../../src/manifest/delimited-rows.js";
import { parseRowFile } from "../../../src/manifest/row-files.js";

/**
 * A CSV's rows are held as where each starts and read again when a job
 * expands them; what is read again is what csv-parse read the first time, cell for cell.
 */

/** Every record as csv-parse gives it with the options of `rows:`; undefined when it refuses. */
function csvParse(text: string, delimiter: string): string[][] | undefined {
  const records: string[][] = [];
  try {
    parseCsv(text, {
      ...CSV_OPTIONS,
      delimiter,
      on_record: (record: string[]) => {
        records.push(record);
        return null;
      },
    });
  } catch {
    return undefined;
  }
  return records;
}

/** Every record as the reader reads it, each also read again from where it starts. */
function readBack(text: string, delimiter: string): { first: string[][]; again: string[][] } {
  const reader = new RecordReader(text, delimiter);
  const first: string[][] = [];
  const starts: number[] = [];
  for (;;) {
    const cells: string[] = [];
    const start = reader.read(cells);
    if (start === -1) break;
    first.push(cells);
    starts.push(start);
  }
  const again = starts.map((start) => {
    const cells: string[] = [];
    reader.readAt(start, cells);
    return cells;
  });
  return { first, again };
}

const WRITTEN = [
  '\uFEFFsku,name\r\nPAN-01,"Copper pan, 24 cm"\r\nMUG-02,"Crème brûlée mug,\r\ntwo lines"\r\n',
  'a,b\n\n\n"say ""hi""",""\n\r\nlast,row',
  "a,b\r\nlone\rreturn,x\r\nlone\nfeed,y\r\n",
  "a,b\nwindows,line\r\nends,kept\r\n",
  "a\rb\rc\n\r",
  'a,b,\n"",\n,',
  'name\tseconds\n"a\tb"\t6\nc, d\t10\n',
];

describe("rows read again from a CSV's text", () => {
  it("quoted commas and line breaks, doubled quotes, a BOM, empty lines and every kind of line break read as csv-parse reads them", () => {
    for (const text of WRITTEN) {
      const delimiter = text.includes("\t") ? "\t" : ",";
      const records = csvParse(text, delimiter);
      expect(records).toBeDefined();
      const { first, again } = readBack(text, delimiter);
      expect(first).toEqual(records);
      expect(again).toEqual(records);
    }
  });

  it("10,000 files of random quotes, delimiters and line breaks read as csv-parse reads every one it accepts", () => {
    const pieces = ["a", "b", ",", "\t", '"', '""', "\n", "\r\n", "\r", " ", "é", "“", "\uFEFF"];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let accepted = 0;
    for (let n = 0; n < 10_000; n++) {
      let text = random() < 0.2 ? "\uFEFF" : "";
      const length = Math.floor(random() * 16);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
      for (const delimiter of [",", "\t"]) {
        const records = csvParse(text, delimiter);
        if (records === undefined) continue;
        accepted++;
        const { first, again } = readBack(text, delimiter);
        expect({ text, first }).toEqual({ text, first: records });
        expect({ text, again }).toEqual({ text, again: records });
      }
    }
    expect(accepted).toBeGreaterThan(5_000);
  });

  it("a CSV's rows are made again each time a job reads one, not held, with the fields csv-parse gave", () => {
    const text = 'sku,name\nA,"pan, red"\nB,mug,extra\nC,kettle\n';
    const parsed = parseRowFile("p.csv", text);
    expect(parsed?.count).toBe(2);
    expect(parsed?.rowAt(1)).toEqual({ sku: "C", name: "kettle" });
    expect(parsed?.rowAt(0)).toEqual({ sku: "A", name: "pan, red" });
    expect(parsed?.rowAt(0)).not.toBe(parsed?.rowAt(0));
    expect(parsed?.problems.map((problem) => problem.position)).toEqual([{ line: 3, col: 1 }]);
  });
});
