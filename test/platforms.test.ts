import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/root.js";
import { STORE_BOUND_TESTS } from "./platforms.js";

/** Every test file of the suite, relative to the project root. */
function testFiles(): string[] {
  return readdirSync(path.join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => path.posix.join("test", file.split(path.sep).join("/")))
    .sort();
}

// Calls that open a SQLite or PostgreSQL store in the test's own process.
const OPENS_A_STORE =
  /\b(openStore|openTestStore|openPgStore|testDatabase|withRun|withProject|withFleet|withEngine)\(|\bSTORE_KINDS\b/;

describe("the tests Node 22 and 24 run", () => {
  it("the store-bound list names existing test files, once each, in order", () => {
    const files = new Set(testFiles());
    expect(STORE_BOUND_TESTS.filter((file) => !files.has(file))).toEqual([]);
    expect([...STORE_BOUND_TESTS].sort()).toEqual(STORE_BOUND_TESTS);
    expect(new Set(STORE_BOUND_TESTS).size).toBe(STORE_BOUND_TESTS.length);
  });

  it("a test file that opens a store itself is on the store-bound list", () => {
    const bound = new Set(STORE_BOUND_TESTS);
    const opening = testFiles().filter((file) =>
      OPENS_A_STORE.test(readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(opening.length).toBeGreaterThan(20);
    expect(opening.filter((file) => !bound.has(file))).toEqual([]);
  });

  it("validate, plan without a state database, and the media tools run on every Node", () => {
    for (const file of [
      "test/cli/validate.test.ts",
      "test/cli/plan.test.ts",
      "test/media/ffmpeg.test.ts",
      "test/media/ffmpeg-choice.test.ts",
    ]) {
      expect(existsSync(path.join(ROOT, file))).toBe(true);
      expect(STORE_BOUND_TESTS).not.toContain(file);
    }
  });
});
