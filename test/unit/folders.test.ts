import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/root.js";

/**
 * A test file's folder picks the project that runs it (vitest.config.ts): these checks fail a
 * file whose source does what its folder's project does not provide. A unit test that starts a
 * process also fails on its own (test/unit-setup.ts), but only when that code path runs; a
 * portable e2e test that opens a store fails only on a Node without better-sqlite3's addon.
 */

/** Every test file of the suite, relative to the project root. */
function testFiles(): string[] {
  return readdirSync(path.join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => path.posix.join("test", file.split(path.sep).join("/")))
    .sort();
}

function under(folder: string): string[] {
  return testFiles().filter((file) => file.startsWith(`${folder}/`));
}

function source(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8");
}

// What only the e2e project provides: starting child processes, itself or through a helper
// (the CLI, a project, a fleet, a lease holder, Chromium, tmux, mount), or reading the build.
const STARTS_PROCESSES =
  /from "(\.\.?\/)+helpers\/(cli|run|project|fleet|lease-holder|chromium|tmux|tmpfs|build)\.js"|["]node:child_process["]|\bdist\//;

// What needs better-sqlite3's addon or the suite's PostgreSQL: a store opened in the test's own
// process, or a database asked of the server.
const OPENS_A_STORE =
  /from "(\.\.?\/)+helpers\/(postgres|postgres-server|store)\.js"|\b(openStore|openTestStore|openPgStore|testDatabase|withRun|withProject|withFleet|withEngine)\(|\bSTORE_KINDS\b/;

describe("the folders that pick a test file's project", () => {
  it("hold every test file, so some project runs each", () => {
    const homeless = testFiles().filter((file) => !/^test\/(unit|store|e2e)\//.test(file));
    expect(homeless).toEqual([]);
  });

  it("test/unit and test/store hold no file that starts a process or reads the build", () => {
    const starting = under("test/e2e").filter((file) => STARTS_PROCESSES.test(source(file)));
    expect(starting.length).toBeGreaterThan(50);
    const inProcess = [...under("test/unit"), ...under("test/store")];
    expect(inProcess.filter((file) => STARTS_PROCESSES.test(source(file)))).toEqual([]);
  });

  it("test/unit and test/e2e/portable hold no file that opens a store", () => {
    const opening = under("test/store").filter((file) => OPENS_A_STORE.test(source(file)));
    expect(opening.length).toBeGreaterThan(20);
    const storeless = [...under("test/unit"), ...under("test/e2e/portable")];
    expect(storeless.filter((file) => OPENS_A_STORE.test(source(file)))).toEqual([]);
  });

  it("run validate, plan without a state database, and the media tools on every Node", () => {
    const portable = under("test/e2e/portable");
    for (const file of ["cli/validate", "cli/plan", "media/ffmpeg", "media/ffmpeg-choice"]) {
      expect(portable).toContain(`test/e2e/portable/${file}.test.ts`);
    }
  });
});
