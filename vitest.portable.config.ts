import { configDefaults, defineConfig } from "vitest/config";
import { STORE_BOUND_TESTS } from "./test/platforms.js";
import { SHARED_TEST_OPTIONS } from "./vitest.config.js";

// Every test that needs no state store, for a Node whose better-sqlite3 addon cannot be built
// (Node 22 and 24 in CI): `npm run test:portable`, the unit project and the e2e files that
// open no store.
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    exclude: [...configDefaults.exclude, ...STORE_BOUND_TESTS],
    globalSetup: ["test/portable-setup.ts"],
  },
});
