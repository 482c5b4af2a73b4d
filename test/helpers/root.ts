import path from "node:path";

/** The repository's root folder, for tests that read its files. */
export const ROOT = path.resolve(import.meta.dirname, "../..");
