import { statfsSync } from "node:fs";

/** Room the suite's files may take at most at once, with its PostgreSQL server's. */
const ROOM_NEEDED = 2 * 1024 ** 3;

/**
 * Puts the suite's temporary folders in memory (/dev/shm) where the machine has room there and
 * no TMPDIR is set: its tests write, sync and remove many small files and databases, and a
 * disk makes them wait on its journal for nothing a test asserts (a killed process leaves the
 * same files either way). Read by the test processes and the PostgreSQL server they start.
 */
export function tempRootInMemory(env: NodeJS.ProcessEnv = process.env): void {
  if (env.TMPDIR !== undefined && env.TMPDIR !== "") return;
  try {
    const memory = statfsSync("/dev/shm");
    if (memory.bavail * memory.bsize >= ROOM_NEEDED) env.TMPDIR = "/dev/shm";
  } catch {
    // No /dev/shm (macOS, Windows): the system's temp folder.
  }
}
