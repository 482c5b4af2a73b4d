import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/index.js";
import { ROOT } from "../helpers/cli.js";
import { tempDir } from "../helpers/manifest.js";
import { imageJobRow, openTestStore } from "../helpers/store.js";

function exitCode(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("close", resolve);
  });
}

const imageJob = imageJobRow("k1");

function openWithJob(): Store {
  const { store, runId } = openTestStore();
  store.addJobs(runId, [imageJob], 1);
  return store;
}

describe("store", () => {
  it("creates its schema by numbered migrations, once", () => {
    const file = path.join(tempDir(), "state.db");
    Store.open(file).close();
    const store = Store.open(file);
    const versions = store.db.prepare("SELECT version FROM migrations ORDER BY version").all();
    const files = readdirSync(path.join(ROOT, "sql")).filter((name) =>
      /^\d{6}-.+\.sql$/.test(name),
    );
    expect(versions).toEqual(files.sort().map((name) => ({ version: Number(name.slice(0, 6)) })));
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    store.close();
  });

  it("applies a migration it lacks even below the highest applied, as branches may land in any order", () => {
    const file = path.join(tempDir(), "state.db");
    const db = Store.open(file);
    // As if migration 3 had not been there when the database last opened, but a later one had.
    db.db.exec(`DROP TABLE text_answers; ALTER TABLE jobs DROP COLUMN placeholder;
      DELETE FROM migrations WHERE version = 3;
      INSERT INTO migrations (version, name, applied_at) VALUES (999, '000999-later.sql', 0);`);
    db.close();
    const store = Store.open(file);
    const versions = store.db.prepare("SELECT version FROM migrations ORDER BY version").all();
    expect(versions).toContainEqual({ version: 3 });
    expect(store.db.prepare("SELECT count(*) AS n FROM text_answers").get()).toEqual({ n: 0 });
    store.close();
  });

  it("lets several processes open one new database at once", async () => {
    // Each child opens the same new file; a race in creating the schema fails one of them.
    const opener = `import { Store } from ${JSON.stringify(path.join(ROOT, "dist/store/index.js"))};
      Store.open(process.argv[1]).close();`;
    for (let round = 0; round < 8; round++) {
      const file = path.join(tempDir(), "state.db");
      const codes = await Promise.all(
        Array.from({ length: 4 }, () => exitCode(["--input-type=module", "-e", opener, file])),
      );
      expect(codes).toEqual([0, 0, 0, 0]);
    }
  }, 30_000);

  it("moves a job only from the state it is in (compare-and-set), and logs the move", () => {
    const store = openWithJob();
    expect(store.move("k1", "pending", "submitting", { claimed_by: "me" }, 2)).toBe(true);
    // A second claim loses: the job is no longer pending.
    expect(store.move("k1", "pending", "submitting", { claimed_by: "other" }, 3)).toBe(false);
    expect(store.job("k1")?.claimed_by).toBe("me");
    const events = store.db.prepare("SELECT type FROM events WHERE job_key = 'k1'").all();
    expect(events).toEqual([{ type: "job:submitting" }]);
    store.close();
  });

  it("refuses a move the state graph does not allow", () => {
    const store = openWithJob();
    expect(() => store.move("k1", "pending", "done", {}, 2)).toThrow(
      /pending → done is not allowed/,
    );
    expect(store.job("k1")?.state).toBe("pending");
    store.close();
  });

  it("keeps a known job's state when a later run records it again", () => {
    const store = openWithJob();
    store.move("k1", "pending", "submitting", {}, 2);
    const second = store.createRun({
      name: "t",
      manifest_path: "/m.yaml",
      manifest_text: "",
      base_url: "sim",
      output_dir: "/out",
      started_at: 3,
    });
    const added = store.addJobs(second, [imageJob], 3);
    expect(added.size).toBe(0);
    expect(store.jobsOf(second).map((job) => job.state)).toEqual(["submitting"]);
    store.close();
  });
});
