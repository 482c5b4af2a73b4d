import { mkdir } from "node:fs/promises";

// Folders this process has made: a run writes thousands of files into a few folders.
const made = new Set<string>();

/** Creates a folder (and its parents) once per process. */
export async function ensureDir(dir: string): Promise<void> {
  if (made.has(dir)) return;
  await mkdir(dir, { recursive: true });
  made.add(dir);
}
