import { hostname } from "node:os";

/** This process, as other processes sharing the state database see it. */

/** A claim's owner: `pid@host`, so another process can tell a live claim from a crash. */
export const CLAIM_OWNER = `${process.pid}@${hostname()}`;

/** Whether a process with this id runs on this machine. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the process named in a claim (`pid@host`) may still be alive: elsewhere, it may. */
export function claimAlive(owner: string | null): boolean {
  if (owner === null) return false;
  const [pid, host] = owner.split("@");
  return host !== hostname() || processAlive(Number(pid));
}
