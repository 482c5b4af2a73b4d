import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { tempRootInMemory } from "./test/temp-root.js";

tempRootInMemory();

/**
 * A test file's folder says what it needs, and so which project runs it; inside each, subject
 * folders mirror src/ (test/unit/engine/pace.test.ts, test/store/fleet/claims.test.ts):
 *
 * - test/unit/: in-process only: no store, no child process, no build.
 * - test/store/: opens SQLite (better-sqlite3's native addon) or the suite's PostgreSQL in this
 *   process, and starts no child process.
 * - test/e2e/: starts child processes (the built CLI, a worker fleet, Chromium, tmux, ffmpeg,
 *   mount), so needs dist/ built, and may open a store.
 * - test/e2e/portable/: the e2e files that open no store. A Node that cannot load
 *   better-sqlite3's addon (22 and 24 in CI) runs them with test/unit/
 *   (vitest.portable.config.ts); every other e2e file, like every store file, needs the addon
 *   or PostgreSQL.
 *
 * test/unit/folders.test.ts fails a file whose folder does not fit what it does.
 */
export const TEST_FOLDERS = {
  unit: tests("test/unit"),
  store: tests("test/store"),
  e2e: tests("test/e2e"),
  portableE2e: tests("test/e2e/portable"),
};

function tests(folder: string): string[] {
  return [`${folder}/**/*.test.ts`, `${folder}/**/*.test.tsx`];
}

/**
 * What every project, and `npm run test:portable`, runs with: a test that leaves a process,
 * server, socket or store open fails (test/leak-check.ts).
 */
export const SHARED_TEST_OPTIONS = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  setupFiles: ["test/leak-check.ts", "test/temp-folders.ts"],
};

/**
 * In-process tests: no build, no server, and no child process (test/unit-setup.ts). Like the
 * other projects', its files share a worker's loaded modules (`isolate: false`): no test file
 * mocks a module, and loading the source once per worker, not once per file, takes two thirds
 * off the project's time.
 */
export const UNIT_PROJECT = {
  test: {
    ...SHARED_TEST_OPTIONS,
    name: "unit",
    isolate: false,
    // Ink reads once per process whether it runs under CI: the dashboard's tests draw as on a
    // person's terminal, in CI too, whichever file loads Ink first.
    env: { CI: "false", CONTINUOUS_INTEGRATION: "false" },
    include: TEST_FOLDERS.unit,
    setupFiles: [...SHARED_TEST_OPTIONS.setupFiles, "test/unit-setup.ts"],
  },
};

// `npm test` runs the three projects; `npm run test:unit` (or :store, :e2e) runs one. Each
// project's global setup starts only what its tests need: PostgreSQL for store, PostgreSQL and
// the build for e2e.
export default defineConfig({
  test: {
    // Modules as transformed, kept in node_modules/.experimental-vitest-cache between runs and
    // keyed by their content: a second `npm test` does not transform the source again.
    experimental: { fsModuleCache: true },
    // Most e2e tests wait on a child process, a server, the database or a rate limit: four at
    // a time keep a two-core machine busy (Vitest's default there is one).
    maxWorkers: Math.max(4, availableParallelism()),
    projects: [
      UNIT_PROJECT,
      {
        test: {
          ...SHARED_TEST_OPTIONS,
          name: "store",
          include: TEST_FOLDERS.store,
          isolate: false,
          globalSetup: ["test/postgres-setup.ts"],
        },
      },
      {
        test: {
          ...SHARED_TEST_OPTIONS,
          name: "e2e",
          include: TEST_FOLDERS.e2e,
          // A test that starts processes gets twice what the slowest needs on a loaded
          // two-core machine; those that start a fleet say so themselves.
          testTimeout: 60_000,
          isolate: false,
          globalSetup: ["test/global-setup.ts"],
        },
      },
    ],
  },
});
