import { spawn } from "node:child_process";
import { commandIo } from "../core/io.js";

/**
 * Opens a URL in the desktop's browser, where there is one (`open`, `explorer`, `xdg-open`);
 * `onMissing` hears when there is none. Here because programs are run from this folder only.
 */
export function openInBrowser(url: string, onMissing: () => void): void {
  const command =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const { cwd, env } = commandIo();
    const child = spawn(command, [url], { stdio: "ignore", detached: true, cwd, env });
    child.on("error", onMissing);
    child.unref();
  } catch {
    onMissing();
  }
}
