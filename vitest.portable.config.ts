import { configDefaults, defineConfig } from "vitest/config";
import { STORE_BOUND_TESTS } from "./test/platforms.js";
import baseConfig from "./vitest.config.js";

// Every test that needs no state store, for a Node whose better-sqlite3 addon cannot be built
// (Node 22 and 24 in CI): `npm run test:portable`.
export default defineConfig({
  test: {
    ...baseConfig.test,
    exclude: [...configDefaults.exclude, ...STORE_BOUND_TESTS],
    globalSetup: ["test/portable-setup.ts"],
  },
});
