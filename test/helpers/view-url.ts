import type { ChildProcess } from "node:child_process";

/** The first line `gwrun view` prints on stdout: its URL with the token (or the link shared). */
export function viewUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.split("\n")[0] as string);
    });
    child.once("exit", () => reject(new Error(`gwrun view exited: ${text}`)));
  });
}
