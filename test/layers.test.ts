import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/root.js";
import { E2E_TESTS, NOT_UNIT_TESTS, STORE_TESTS } from "./layers.js";
import { STORE_BOUND_TESTS } from "./platforms.js";

/** Every test file of the suite, relative to the project root. */
function testFiles(): string[] {
  return readdirSync(path.join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => path.posix.join("test", file.split(path.sep).join("/")))
    .sort();
}

function source(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8");
}

// What a file does that only the e2e project provides: start child processes itself or through
// a helper (the CLI, a project, a fleet, a lease holder, Chromium, tmux, mount), or read the
// build.
const STARTS_PROCESSES =
  /from "(\.\.?\/)+helpers\/(cli|run|project|fleet|lease-holder|chromium|tmux|tmpfs|build)\.js"|["]node:child_process["]|\bdist\//;
// What needs a store: the suite's PostgreSQL server, or a store opened in-process.
const NEEDS_A_STORE =
  /from "(\.\.?\/)+helpers\/(postgres|postgres-server|store)\.js"|\b(openStore|openTestStore|openPgStore|testDatabase)\(/;

describe("the suite's unit, store and e2e projects", () => {
  it("the e2e list names existing test files, once each, in order", () => {
    const files = new Set(testFiles());
    expect(E2E_TESTS.filter((file) => !files.has(file))).toEqual([]);
    expect([...E2E_TESTS].sort()).toEqual(E2E_TESTS);
    expect(new Set(E2E_TESTS).size).toBe(E2E_TESTS.length);
  });

  it("a file that starts processes or reads the build is an e2e test", () => {
    const starting = testFiles().filter((file) => STARTS_PROCESSES.test(source(file)));
    expect(starting.length).toBeGreaterThan(50);
    expect(starting.filter((file) => !E2E_TESTS.includes(file))).toEqual([]);
  });

  it("no unit test needs a store, and every store-bound file is a store or e2e test", () => {
    const unit = testFiles().filter((file) => !NOT_UNIT_TESTS.includes(file));
    expect(unit.length).toBeGreaterThan(70);
    expect(unit.filter((file) => NEEDS_A_STORE.test(source(file)))).toEqual([]);
    expect(
      STORE_BOUND_TESTS.filter((file) => !STORE_TESTS.includes(file) && !E2E_TESTS.includes(file)),
    ).toEqual([]);
  });

  it("a store test starts no process, so it needs neither the build nor a spawn", () => {
    expect(STORE_TESTS.length).toBeGreaterThan(20);
    expect(STORE_TESTS.filter((file) => STARTS_PROCESSES.test(source(file)))).toEqual([]);
  });
});
