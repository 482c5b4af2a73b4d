import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { passwordFile, passwordFromFile } from "../../../src/store/postgres/password-file.js";
import { tempDir } from "../../helpers/manifest.js";

/** A password file of `lines`, readable by its owner only unless `mode` says otherwise. */
function file(lines: string[], mode = 0o600): string {
  const name = path.join(tempDir(), "pgpass");
  writeFileSync(name, `${lines.join("\n")}\n`);
  chmodSync(name, mode);
  return name;
}

const CONNECTION = { host: "db.internal", port: 5432, database: "gwrun", user: "gw" };

describe("the PostgreSQL password file", () => {
  it("takes the first line that matches, * for any field, skipping comments", async () => {
    const lines = [
      "# db.internal:5432:gwrun:gw:commented",
      "other:5432:gwrun:gw:not-this",
      "db.internal:6543:*:gw:not-this-port",
      "db.internal:*:*:gw:this-one",
      "*:*:*:*:too-late",
    ];
    expect(await passwordFromFile(CONNECTION, file(lines))).toBe("this-one");
    expect(await passwordFromFile({ ...CONNECTION, user: "ro" }, file(lines))).toBe("too-late");
  });

  it("reads \\: and \\\\ as : and \\, and a password may hold colons", async () => {
    const lines = ["db\\:internal:5432:gwrun:gw:a\\\\b:c"];
    expect(await passwordFromFile({ ...CONNECTION, host: "db:internal" }, file(lines))).toBe(
      "a\\b:c",
    );
  });

  it("ignores a file other users may read, as libpq does, and a missing one", async () => {
    expect(await passwordFromFile(CONNECTION, file(["*:*:*:*:open"], 0o644))).toBeUndefined();
    expect(await passwordFromFile(CONNECTION, path.join(tempDir(), "none"))).toBeUndefined();
  });

  it("is PGPASSFILE, else ~/.pgpass", () => {
    expect(passwordFile({ PGPASSFILE: "/etc/gwrun/pgpass" })).toBe("/etc/gwrun/pgpass");
    expect(passwordFile({})).toMatch(/[/\\]\.pgpass$|pgpass\.conf$/);
  });
});
