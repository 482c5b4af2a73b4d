import { defineConfig } from "vitest/config";
import { SHARED_TEST_OPTIONS, TEST_FOLDERS } from "./vitest.config.js";

// Every test that needs no state store, for a Node whose better-sqlite3 addon cannot be built
// (Node 22 and 24 in CI): `npm run test:portable`, the unit tests and the e2e files that open
// no store (test/e2e/portable/; vitest.config.ts says what each folder holds).
export default defineConfig({
  test: {
    ...SHARED_TEST_OPTIONS,
    include: [...TEST_FOLDERS.unit, ...TEST_FOLDERS.portableE2e],
    globalSetup: ["test/portable-setup.ts"],
  },
});
