import { cpSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PgDb } from "../../../src/store/postgres/db.js";
import { migrate } from "../../../src/store/postgres/migrate.js";
import { gwrun, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";

const MIGRATIONS = readdirSync(path.join(ROOT, "sql/pg"))
  .filter((file) => /^\d{6}-.*\.sql$/.test(file))
  .sort();
const LATEST = Number((MIGRATIONS.at(-1) as string).slice(0, 6));

/** gwrun's tables in the database's schema. */
async function tablesIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()",
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

describe("gwrun store migrate says what it did", () => {
  it("on an empty database it says it created the schema, with its tables and version; then that it is up to date", async () => {
    const url = await testDatabase();
    const created = await gwrun(["store", "migrate"], { env: { GWRUN_STORE: url } });
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const tables = await tablesIn(url);
    expect(tables).toBeGreaterThan(5);
    expect(created.stdout).toMatch(
      new RegExp(
        `^gwrun: created the schema of the store at .+: ${tables} tables, version ${LATEST}\\n$`,
      ),
    );
    expect(created.stdout).not.toContain("up to date");
    const again = await gwrun(["store", "migrate"], { env: { GWRUN_STORE: url } });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`is up to date \\(schema version ${LATEST}\\)\\n$`));
  });

  it("on a database part way it names the migrations it applied and the versions", async () => {
    const url = await testDatabase();
    // The store as an older gwrun left it: every migration but the latest.
    const older = tempDir();
    cpSync(path.join(ROOT, "sql/pg"), older, { recursive: true });
    rmSync(path.join(older, MIGRATIONS.at(-1) as string));
    const db = new PgDb(url, 1);
    try {
      await migrate(db, pathToFileURL(`${older}/`));
    } finally {
      await db.close();
    }
    const result = await gwrun(["store", "migrate"], { env: { GWRUN_STORE: url } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `brought the store at .+ from schema version ${LATEST - 1} to ${LATEST}: applied ${MIGRATIONS.at(-1)}\\n$`,
      ),
    );
  });
});
