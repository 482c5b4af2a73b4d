import pg from "pg";
import { describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/postgres.js";

describe("the test PostgreSQL server", () => {
  it("gives each caller a database of its own", async () => {
    const [first, second] = await Promise.all([testDatabase(), testDatabase()]);
    expect(first).not.toBe(second);
    const client = new pg.Client({ connectionString: first });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'",
      );
      expect(rows).toEqual([{ n: "0" }]);
    } finally {
      await client.end();
    }
  });
});
