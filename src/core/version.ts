import { readOwnFile } from "./file-gate.js";
import { ownFileUrl } from "./own-files.js";

/** gwrun's version, as package.json states it. */
export const GWRUN_VERSION = (
  JSON.parse(readOwnFile(ownFileUrl("package.json")).toString("utf8")) as {
    version: string;
  }
).version;
