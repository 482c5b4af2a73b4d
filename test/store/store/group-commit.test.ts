import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../../src/store/sqlite/group-commit.js";
import { tempDir } from "../../helpers/manifest.js";

function openDb(): { db: Database.Database; file: string } {
  const file = path.join(tempDir(), "group.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY)");
  return { db, file };
}

describe("writes committed together per turn", () => {
  it("commits a turn's writes together; a failed write undoes only itself", async () => {
    const { db, file } = openDb();
    const group = new GroupCommit(db);
    const insert = db.prepare("INSERT INTO t (n) VALUES (?)");
    const writes = [
      group.write(() => insert.run(1).changes),
      group.write(() => {
        insert.run(2);
        insert.run(1); // a duplicate key: this write fails after inserting 2
      }),
      group.write(() => insert.run(3).changes),
    ];
    const settled = await Promise.allSettled(writes);
    expect(settled.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    // Another connection sees the turn as one commit: 1 and 3, not the failed write's 2.
    const other = new Database(file, { readonly: true });
    expect(other.prepare("SELECT n FROM t ORDER BY n").pluck().all()).toEqual([1, 3]);
    other.close();
  });

  it("settles each promise only after the commit another process can read", async () => {
    const { db, file } = openDb();
    const group = new GroupCommit(db);
    const other = new Database(file, { readonly: true });
    const count = other.prepare("SELECT count(*) FROM t").pluck();
    const written = group.write(() => db.prepare("INSERT INTO t (n) VALUES (7)").run());
    // Asked for, not yet committed: nobody sees it until the turn ends.
    expect(count.get()).toBe(0);
    await written;
    expect(count.get()).toBe(1);
    other.close();
  });

  it("commits what waits when flushed before the database closes", () => {
    const { db, file } = openDb();
    const group = new GroupCommit(db);
    void group.write(() => db.prepare("INSERT INTO t (n) VALUES (9)").run());
    group.flush();
    db.close();
    const reopened = new Database(file, { readonly: true });
    expect(reopened.prepare("SELECT n FROM t").pluck().all()).toEqual([9]);
    reopened.close();
  });
});
