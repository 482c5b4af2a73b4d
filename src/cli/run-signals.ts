import { ExitCode } from "../api/index.js";

/**
 * First Ctrl-C (or SIGTERM, or `q` on the dashboard): stop gracefully. A second: exit at once —
 * the store is already consistent. `say` tells the person through the reporter.
 */
export function onInterrupt(
  stop: () => void,
  say: (message: string) => void,
): { interrupt(): void; dispose(): void } {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      say("stopping: no new submits; Ctrl-C again to exit at once");
      stop();
    } else {
      process.exit(ExitCode.Interrupted);
    }
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    interrupt: handler,
    dispose() {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}

/**
 * Settles at the first SIGINT or SIGTERM. Listening from the call: a server that says it
 * serves after calling this stops cleanly on a signal sent the moment it says so.
 */
export function stopRequested(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
