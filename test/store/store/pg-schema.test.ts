import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { testDatabase } from "../../helpers/postgres.js";
import {
  PG_SCHEMA_COMMAND,
  PG_SCHEMA_FILE,
  renderPgSchema,
} from "../../helpers/postgres-schema.js";
import { ROOT } from "../../helpers/root.js";

describe(PG_SCHEMA_FILE, () => {
  it(`holds the tables, functions and triggers the migrations make (\`${PG_SCHEMA_COMMAND}\` writes it)`, async () => {
    const expected = await renderPgSchema(await testDatabase({ schema: true }));
    const file = path.join(ROOT, PG_SCHEMA_FILE);
    if (process.env.GWRUN_WRITE_PG_SCHEMA === "1") writeFileSync(file, expected);
    expect(
      readFileSync(file, "utf8"),
      `${PG_SCHEMA_FILE} is stale: run \`${PG_SCHEMA_COMMAND}\``,
    ).toBe(expected);
    // The function queuing submit jobs was defined three times; only its last body is here.
    expect(expected.match(/FUNCTION public\.gwrun_queue_submits\(\)/g)).toHaveLength(1);
    expect(expected).toContain("FOR recording IN SELECT DISTINCT t.run_id FROM inserted t LOOP");
  });
});
