import { spawn } from "node:child_process";
import path from "node:path";

const SCRIPT = path.join(import.meta.dirname, "hold-lease.mjs");

/** Another process holding manifest `name`'s lease in `db`, taken as of `now` (ms). */
export interface LeaseHolderProcess {
  pid: number;
  /** Gives the lease back and exits. */
  release(): Promise<void>;
  /** Dies without giving it back, as a crashed gwrun would. */
  kill(): Promise<void>;
}

export async function holdLeaseElsewhere(
  db: string,
  name: string,
  now: number,
): Promise<LeaseHolderProcess> {
  const child = spawn(process.execPath, [SCRIPT, db, name, String(now)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const firstLine = await new Promise<string>((resolve) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("\n")) resolve(output.trim());
    });
    child.once("exit", () => resolve(output.trim()));
  });
  if (firstLine !== "held") {
    child.kill("SIGKILL");
    throw new Error(`the second process could not take the lease: ${firstLine}`);
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    pid: child.pid as number,
    async release() {
      child.stdin.write("release\n");
      await exited;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
