// Where the benchmarks write their files: GWRUN_BENCH_DIR, else memory (/dev/shm) on a machine
// that has it, else the system's temp folder. On a disk, the figures of runs that write many
// files follow what the disk did in the minutes before (see docs/decisions.md, "Benchmarks and
// the disk"), by up to a half: they would measure the disk's past, not gwrun.
import { accessSync, constants, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export const BENCH_BASE =
  process.env.GWRUN_BENCH_DIR || (writable("/dev/shm") ? "/dev/shm" : tmpdir());

/** A new folder for one benchmark's files. */
export function benchFolder(name) {
  return mkdtempSync(path.join(BENCH_BASE, `gwrun-bench-${name}-`));
}
