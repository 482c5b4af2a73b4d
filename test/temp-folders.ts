import { afterAll } from "vitest";
import { removeTempDirs } from "./helpers/manifest.js";

/** Set up before each test file of every project: the temporary folders it made go after it. */
afterAll(() => {
  removeTempDirs();
});
