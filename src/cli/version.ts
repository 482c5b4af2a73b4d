import { readFileSync } from "node:fs";

/** gwrun's version, as package.json states it. */
export const GWRUN_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
