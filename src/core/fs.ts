import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { processAlive } from "./process.js";

// Folders made since a run started: a run writes thousands of files into a few folders.
const made = new Set<string>();

/** Creates a folder (and its parents) once per run (see `forgetMadeFolders`). */
export async function ensureDir(dir: string): Promise<void> {
  if (made.has(dir)) return;
  await mkdir(dir, { recursive: true });
  made.add(dir);
}

/**
 * Called as a run starts: a folder made for an earlier run in this process (a program calling
 * `run` again, a worker) may have been removed since.
 */
export function forgetMadeFolders(): void {
  made.clear();
}

/** Partial files this process has named: with its start, unique to it (no system call each). */
let partials = 0;
const started = randomBytes(4).toString("hex");

/**
 * The longest tail `partialFile` gives a name: a pid of 7 digits (Linux's largest, 4194304),
 * this process's 8 hex digits and a count of up to 8 more.
 */
export const LONGEST_PARTIAL_TAIL = ".4194304-ffffffffffffffff.part";

/**
 * A fresh name for the partial file of `dest` in `dir`: `<name>.<pid>-<hex>.part`. The pid
 * says whose it is, so a later run can remove what a killed process left behind.
 */
export function partialFile(dir: string, dest: string): string {
  partials += 1;
  return path.join(
    dir,
    `${path.basename(dest)}.${process.pid}-${started}${partials.toString(16)}.part`,
  );
}

/** Removes the partial files in `dir` whose process is no longer alive; returns how many. */
export function sweepPartials(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    // A review image's partial keeps its extension after `.part`.
    const pid = /\.(\d+)-[0-9a-f]+\.part(?:\.\w+)?$/.exec(name)?.[1];
    if (pid === undefined || processAlive(Number(pid))) continue;
    rmSync(path.join(dir, name), { force: true });
    removed += 1;
  }
  return removed;
}
