import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ErrorCode, GwError } from "../core/errors.js";
import { readOwnFile } from "../core/file-gate.js";

/**
 * The shared output folder's marker. Every host of a fleet must see the same folder (NFS or
 * similar) in its project folder (paths in the store are relative to the project, so the
 * mount point may differ between hosts): a host that cannot see a done task's file would redo
 * it, and pay again. `run` writes the store's identity into the folder; a worker that cannot
 * read it there refuses to work the run.
 */

export const MARKER_FILE = ".gwrun-store";

export function writeMarker(outputDir: string, storeId: string): void {
  const file = path.join(outputDir, MARKER_FILE);
  const found = readMarker(file);
  if (found !== undefined && found !== storeId)
    throw new GwError(
      ErrorCode.Usage,
      `${outputDir} holds the outputs of another gwrun store (${MARKER_FILE} says ${found})`,
      {
        hint: "give this manifest its own output.dir, or run it against the store that owns the folder",
      },
    );
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ store: storeId })}\n`);
}

/** Throws, saying what to do, unless this host sees the store's marker in `outputDir`. */
export function checkMarker(outputDir: string, storeId: string): void {
  const file = path.join(outputDir, MARKER_FILE);
  const found = readMarker(file);
  if (found === storeId) return;
  throw new GwError(
    ErrorCode.Usage,
    found === undefined
      ? `this host cannot see the shared output folder ${outputDir} (no ${file})`
      : `${outputDir} on this host belongs to another gwrun store (${MARKER_FILE} says ${found})`,
    {
      hint: "start the worker in the project folder (it finds the folder from there), with the fleet's shared output folder mounted inside it (NFS or similar)",
    },
  );
}

function readMarker(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readOwnFile(file, 4096).toString("utf8")) as { store?: unknown };
    return typeof parsed.store === "string" ? parsed.store : "";
  } catch {
    return "";
  }
}
