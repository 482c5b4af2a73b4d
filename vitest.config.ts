import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { E2E_TESTS, NOT_UNIT_TESTS, STORE_TESTS } from "./test/layers.js";
import { tempRootInMemory } from "./test/temp-root.js";

tempRootInMemory();

/**
 * What every project, and `npm run test:portable`, runs with: a test that leaves a process,
 * server, socket or store open fails (test/leak-check.ts).
 */
export const SHARED_TEST_OPTIONS = {
  include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
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
    exclude: [...configDefaults.exclude, ...NOT_UNIT_TESTS],
    setupFiles: [...SHARED_TEST_OPTIONS.setupFiles, "test/unit-setup.ts"],
  },
};

// `npm test` runs the three projects; `npm run test:unit` (or :store, :e2e) runs one. Each
// project's global setup starts only what its tests need (test/layers.ts).
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
          include: [...STORE_TESTS],
          isolate: false,
          globalSetup: ["test/postgres-setup.ts"],
        },
      },
      {
        test: {
          ...SHARED_TEST_OPTIONS,
          name: "e2e",
          include: [...E2E_TESTS],
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
