import type { Command } from "commander";
import { ExitCode, projectFolder } from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { commandIo, resolveFromCwd } from "../core/io.js";
import { err } from "./output.js";

/**
 * `gwrun mcp`: serves gwrun's tools to an agent over stdio (or Streamable HTTP on loopback
 * with `--http PORT`), in the project folder it was started in, until the client leaves
 * (stdio) or SIGTERM / Ctrl-C; runs it started go on to their end, or stop gracefully.
 */

export interface McpFlags {
  project?: string;
  maxCost?: string;
  allowReview?: boolean;
  allowExport?: boolean;
  http?: string;
}

export async function mcp(flags: McpFlags): Promise<ExitCode> {
  const { serveHttp, serveStdio } = await import("../mcp/index.js");
  const io = commandIo();
  const options = {
    project: flags.project === undefined ? projectFolder(io.cwd) : resolveFromCwd(flags.project),
    maxCost: maxCostOf(flags.maxCost),
    allowReview: flags.allowReview === true,
    allowExport: flags.allowExport === true,
    env: io.env,
    // stdout is the protocol's: everything else goes to stderr.
    log: io.stderr,
  };
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    if (flags.http === undefined) {
      const ended = await serveStdio(options, io, stopping.signal);
      return ended === "stopped" ? ExitCode.Interrupted : ExitCode.Ok;
    }
    const served = await serveHttp(options, portOf(flags.http), io.env.GWRUN_MCP_TOKEN);
    err(
      `gwrun mcp: ${served.url} (Authorization: Bearer ${served.token}), serving ${options.project}`,
    );
    await new Promise<void>((resolve) =>
      stopping.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    await served.close();
    return ExitCode.Interrupted;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function maxCostOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const amount = Number(value);
  if (!Number.isFinite(amount) || amount < 0)
    throw new GwError(ErrorCode.Usage, `--max-cost takes an amount (e.g. 5), got "${value}"`);
  return amount;
}

function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GwError(
      ErrorCode.Usage,
      `--http takes a port (e.g. 8765, or 0 for any), got "${value}"`,
    );
  return port;
}

/** `gwrun mcp`, on the program. */
export function addMcpCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("mcp")
    .description(
      "serve gwrun to an agent as a Model Context Protocol server over stdio: validate, plan, run (within --max-cost), status, outputs, cost, retry",
    )
    .option(
      "--project <dir>",
      "the project folder it serves (default: the working folder's project)",
    )
    .option(
      "--max-cost <amount>",
      "the most one run may be allowed to spend (its manifest's limits.max_cost); without it, nothing runs",
    )
    .option(
      "--allow-review",
      "offer the review tool: approve or reject outputs, recorded as the agent's",
    )
    .option(
      "--allow-export",
      "offer the export tool: copy approved or selected outputs into a folder of the project",
    )
    .option(
      "--http <port>",
      "serve Streamable HTTP on 127.0.0.1:PORT instead, with a token (GWRUN_MCP_TOKEN or one printed)",
    )
    .action(async (flags: McpFlags) => {
      setExit(await mcp(flags));
    });
}
