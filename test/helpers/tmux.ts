import { spawnSync } from "node:child_process";
import { until as waitUntil } from "./until.js";

/**
 * A command in a real terminal: a tmux session on a server of its own, its screen read with
 * `capture-pane`. The pane stays after the command exits, so its last screen can be read.
 */
export interface TmuxSession {
  /** The screen as text; with `escapes`, with the SGR sequences tmux would draw it with. */
  screen(escapes?: boolean): string;
  /** Reads the screen until `until` holds for it; every screen seen is passed to `each`. */
  watch(
    until: (text: string) => boolean,
    each?: (text: string) => void,
    timeoutMs?: number,
  ): Promise<string>;
  tmux(...args: string[]): string;
  /** Stops the session's server. */
  close(): void;
}

let servers = 0;

/** Runs `command` (a shell line) in `cwd` on a terminal `columns` × `rows`. */
export function startTmux(
  command: string,
  options: { cwd: string; columns: number; rows: number },
): TmuxSession {
  // A server per session: one killed by the last test may still be exiting, and a new session
  // on its socket would meet it ("server exited unexpectedly").
  servers += 1;
  const socket = `gwrun-test-${process.pid}-${servers}`;
  const tmux = (...args: string[]): string => {
    const result = spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`tmux ${args[0]}: ${result.stderr}`);
    return result.stdout;
  };
  const line = `${command}; echo "gwrun exited $?"; sleep 600`;
  const size = ["-x", String(options.columns), "-y", String(options.rows)];
  tmux("new-session", "-d", ...size, "-s", "run", "-c", options.cwd, line);
  const screen = (escapes = false) =>
    tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", "run");
  return {
    screen,
    tmux,
    async watch(until, each = () => {}, timeoutMs = 50_000) {
      let text = "";
      try {
        return await waitUntil(
          "the screen",
          () => {
            text = screen();
            each(text);
            return until(text) && text;
          },
          { timeoutMs, everyMs: 100 },
        );
      } catch {
        throw new Error(`timed out; the screen:\n${text}`);
      }
    },
    close() {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
  };
}

/** SGR sequences that set a colour (foreground or background, any depth); resets and bold are not. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escapes is the point
export const COLOUR_SGR = /\u001b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;
