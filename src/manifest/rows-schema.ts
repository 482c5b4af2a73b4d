import * as z from "zod";

/** The shape of a job's `rows:` and of the `where:` that picks rows or upstream outputs. */

/** Values a row (or an upstream task's variables) must have to be kept: field → value. */
export const rowWhere = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
);

const glob = z.string().min(1);

/** A job's `rows:`, which it may leave out. */
export const rowsSchema = z
  .union([
    z.string().min(1),
    z.strictObject({ file: z.string().min(1), where: rowWhere.optional() }),
    z.strictObject({
      url: z
        .string()
        .min(1)
        .describe(
          "an http(s) URL of CSV, TSV, JSONL or JSON rows (a spreadsheet published as CSV), fetched when the manifest is checked; a run records the body it used",
        ),
      where: rowWhere.optional(),
    }),
    z.strictObject({
      files: z
        .union([glob, z.array(glob).min(1)])
        .describe(
          'one row per file: a glob relative to the manifest ("photos/*.jpg", "photos/**/*.png"), or a list; a pattern starting with ! leaves files out',
        ),
      where: rowWhere.optional(),
    }),
    z.array(z.record(z.string(), z.unknown())).min(1),
  ])
  .optional()
  .describe(
    "one set of tasks per row, read as {{row.<field>}}: a CSV, TSV, JSONL or JSON file (relative to the manifest), { file, where }, { files: GLOB, where } (one row per file), an http(s) URL or { url, where }, or a list",
  );
