import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { dbPath, storeName } from "../../../src/api/index.js";

const URL_ = "postgres://gw:s3cret@db.internal:5432/gwrun";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("choosing the store", () => {
  it("keeps SQLite the default, in the project folder", () => {
    vi.stubEnv("GWRUN_STORE", "");
    vi.stubEnv("GWRUN_DB", undefined);
    expect(dbPath({}, "/project")).toBe(path.join("/project", "data", "gwrun.db"));
    expect(dbPath({ db: "state.db" }, "/project")).toBe(path.resolve("state.db"));
  });

  it("takes PostgreSQL from --store, else GWRUN_STORE; --db still wins over the environment", () => {
    vi.stubEnv("GWRUN_STORE", URL_);
    expect(dbPath({}, "/project")).toBe(URL_);
    expect(dbPath({ store: "postgresql://other/db" }, "/project")).toBe("postgresql://other/db");
    expect(dbPath({ db: "/tmp/state.db" }, "/project")).toBe("/tmp/state.db");
  });

  it("refuses a --store that is no connection string, and --db with --store", () => {
    expect(() => dbPath({ store: "state.db" })).toThrow(/--store takes a postgres:\/\//);
    expect(() => dbPath({ store: URL_, db: "state.db" })).toThrow(/not both/);
  });

  it("names a PostgreSQL store without its password", () => {
    expect(storeName(URL_)).toBe("postgres://gw:***@db.internal:5432/gwrun");
    expect(storeName("/data/gwrun.db")).toBe("/data/gwrun.db");
  });
});
