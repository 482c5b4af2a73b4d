import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openPgStore, openStore } from "../../../src/store/index.js";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";
import { claimOne, imageTask } from "../../helpers/store.js";

function exitCode(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("close", resolve);
  });
}

/** The numbered migration files of `folder` (under sql/), as versions. */
function versionsIn(folder: string): { version: number }[] {
  return readdirSync(path.join(ROOT, folder))
    .filter((name) => /^\d{6}-.+\.sql$/.test(name))
    .sort()
    .map((name) => ({ version: Number(name.slice(0, 6)) }));
}

describe("the SQLite store's schema", () => {
  it("creates its schema by numbered migrations, once", async () => {
    const file = path.join(tempDir(), "state.db");
    await openStore(file).close();
    const store = openStore(file);
    const versions = store.db.prepare("SELECT version FROM migrations ORDER BY version").all();
    expect(versions).toEqual(versionsIn("sql"));
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    await store.close();
  });

  it("applies a migration it lacks even below the highest applied, as branches may land in any order", async () => {
    const file = path.join(tempDir(), "state.db");
    const db = openStore(file);
    // As if migration 3 had not been there when the database last opened, but a later one had
    // (the index of the views' reads names the column migration 3 adds).
    db.db.exec(`DROP INDEX jobs_of_runs; DROP TABLE text_answers; ALTER TABLE jobs DROP COLUMN placeholder;
      DELETE FROM migrations WHERE version = 3;
      INSERT INTO migrations (version, name, applied_at) VALUES (999, '000999-later.sql', 0);`);
    await db.close();
    const store = openStore(file);
    const versions = store.db.prepare("SELECT version FROM migrations ORDER BY version").all();
    expect(versions).toContainEqual({ version: 3 });
    expect(store.db.prepare("SELECT count(*) AS n FROM text_answers").get()).toEqual({ n: 0 });
    await store.close();
  });

  it("turns a task an old database left cancelled back into a pending one (migration 5)", async () => {
    const file = path.join(tempDir(), "state.db");
    const db = openStore(file);
    const run = await db.createRun({
      name: "t",
      manifest_path: "/m.yaml",
      manifest_text: "",
      base_url: "sim",
      output_dir: "/out",
      started_at: 1,
    });
    await db.recordTasks(run, [imageTask("stopped"), imageTask("gave-up")], 1);
    // As an old gwrun left them: one task cancelled by a stop, one failed; migration 5 not run.
    db.db.exec(`UPDATE jobs SET state = 'cancelled', reason = 'stopped' WHERE key = 'stopped';
      UPDATE jobs SET state = 'failed', reason = 'gateway said no' WHERE key = 'gave-up';
      DELETE FROM migrations WHERE version = 5;`);
    await db.close();
    const store = openStore(file);
    expect(store.db.prepare("SELECT version FROM migrations WHERE version = 5").get()).toEqual({
      version: 5,
    });
    expect(await store.task("stopped")).toMatchObject({ state: "pending", reason: null });
    expect(await store.task("gave-up")).toMatchObject({
      state: "failed",
      reason: "gateway said no",
    });
    // And it can be sent like any pending task.
    const stopped = await store.task("stopped");
    if (stopped === undefined) throw new Error("no task stopped");
    expect(await claimOne(store, stopped, "me", 2)).toBeDefined();
    await store.close();
  });

  it("lets several processes open one new database at once", async () => {
    // Each child opens the same new file; a race in creating the schema fails one of them.
    const opener = `import { openStore } from ${JSON.stringify(path.join(ROOT, "dist/store/index.js"))};
      await openStore(process.argv[1]).close();`;
    for (let round = 0; round < 8; round++) {
      const file = path.join(tempDir(), "state.db");
      const codes = await Promise.all(
        Array.from({ length: 4 }, () => exitCode(["--input-type=module", "-e", opener, file])),
      );
      expect(codes).toEqual([0, 0, 0, 0]);
    }
  }, 30_000);
});

describe("the PostgreSQL store's schema", () => {
  it("creates its schema by numbered migrations, once", async () => {
    const url = await testDatabase();
    await (await openPgStore(url)).close();
    const store = await openPgStore(url);
    const { rows } = await store.pool.query("SELECT version FROM migrations ORDER BY version");
    expect(rows).toEqual(versionsIn("sql/pg"));
    await store.close();
  });

  it("lets several processes open one new database at once", async () => {
    const url = await testDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore(url)));
    await Promise.all(stores.map((store) => store.close()));
  });

  it("opens without migrating only a database whose schema is up to date", async () => {
    const url = await testDatabase();
    await expect(openPgStore(url, { migrate: false })).rejects.toThrow(
      /holds no gwrun schema.*GWRUN_NO_SCHEMA/,
    );
    await (await openPgStore(url)).close();
    await (await openPgStore(url, { migrate: false })).close();
  });
});
