import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readRecordedSync, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import { startDetachedGwrun } from "../media/index.js";
import { asProjectCommand, type McpOptions } from "./context.js";

/**
 * A run an agent asked for, started as `gwrun … --json` in a process of its own: it goes on
 * after the tool call answered and after the client (and this server) went away, under the
 * store's budget and pace as any run. Its events and messages go to `data/mcp/` of the
 * project; the call answers once the run has said its id, or has ended, or a few seconds passed.
 */

/** How long a tool call waits for a run to say its id, and how often it looks. */
const STARTED_WITHIN_MS = 5000;
const LOOK_EVERY_MS = 50;

export type Started =
  | { runId: number; events: string }
  | { runId: undefined; events: string }
  | { ended: number | null; events: string; messages: string };

export async function startRunProcess(
  options: McpOptions,
  args: readonly string[],
): Promise<Started> {
  const folder = path.join(options.project, "data", "mcp");
  mkdirSync(folder, { recursive: true });
  const stem = path.join(
    folder,
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`,
  );
  const files = { stdout: `${stem}.jsonl`, stderr: `${stem}.log` };
  const child = await asProjectCommand(options, async () =>
    startDetachedGwrun([...args, "--json"], files),
  );
  let ended: number | null | undefined;
  void child.exited.then((code) => {
    ended = code;
  });
  const events = path.relative(options.project, files.stdout);
  for (let waited = 0; waited < STARTED_WITHIN_MS; waited += LOOK_EVERY_MS) {
    const runId = startedRun(files.stdout);
    if (runId !== undefined) return { runId, events };
    if (ended !== undefined) return { ended, events, messages: textOf(files.stderr).trim() };
    await sleep(LOOK_EVERY_MS);
  }
  return { runId: undefined, events };
}

/** The run id of the first `run:started` event written so far. */
function startedRun(file: string): number | undefined {
  for (const line of textOf(file).split("\n")) {
    if (!line.includes('"run:started"')) continue;
    try {
      const event = JSON.parse(line) as { type?: string; runId?: unknown };
      if (event.type === "run:started" && typeof event.runId === "number") return event.runId;
    } catch {
      // A line still being written.
    }
  }
  return undefined;
}

/** A file this server had the run write, read through the file gate (empty when it cannot). */
function textOf(file: string): string {
  const read = readRecordedSync(file, TEXT_FILE_MAX_BYTES);
  return "problem" in read ? "" : read.bytes.toString("utf8");
}
