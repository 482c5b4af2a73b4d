import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Small file systems for local faults: a tmpfs mounted where a test wants a full or read-only
 * disk. Mounting needs privileges; where the machine refuses, the test is skipped, saying why.
 */

/** Mounts a tmpfs of `size` (e.g. "64k") at `dir`; false (with the reason printed) where this machine cannot. */
export function mountTiny(dir: string, size = "64k"): boolean {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
    return true;
  } catch (error) {
    console.log(`skipped: cannot mount a small tmpfs here (${(error as Error).message.trim()})`);
    return false;
  }
}

export function unmount(dir: string): void {
  execFileSync("umount", [dir]);
}

/** Makes the tmpfs at `dir` read-only (root writes to a read-only file otherwise). */
export function remountReadOnly(dir: string): void {
  execFileSync("mount", ["-o", "remount,ro", dir]);
}

/** Fills the file system under `dir` to the last byte. */
export function fill(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(path.join(dir, `filler-${i}`), Buffer.alloc(4096));
    } catch {
      return;
    }
  }
}

/** Frees what `fill` took. */
export function unfill(dir: string): void {
  for (const name of readdirSync(dir)) if (name.startsWith("filler-")) rmSync(path.join(dir, name));
}
