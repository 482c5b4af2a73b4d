import { readOwnFile } from "./file-gate.js";

/** gwrun's version, as package.json states it. */
export const GWRUN_VERSION = (
  JSON.parse(readOwnFile(new URL("../../package.json", import.meta.url)).toString("utf8")) as {
    version: string;
  }
).version;
