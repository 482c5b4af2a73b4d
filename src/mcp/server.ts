import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { GWRUN_VERSION } from "../core/version.js";
import type { McpOptions } from "./context.js";
import { registerOutputs } from "./outputs-tool.js";
import { registerReadTools } from "./read-tools.js";
import { registerReviewTools } from "./review-tools.js";
import { registerRunTools } from "./run-tools.js";

/**
 * `gwrun mcp`: gwrun's operations as Model Context Protocol tools, for an agent, with the
 * guards a person has — paths inside the project, a spending ceiling set by the person who
 * starts the server, no secret in any answer, runs in processes of their own that never pay
 * twice.
 */

const INSTRUCTIONS = `gwrun runs batches of image, video and text generations described by YAML manifests.
Check a manifest with validate, see what it would do and cost with plan, then run it: run answers at once with a run id, and status follows it. Nothing done is ever paid again. outputs lists what a run made (thumbnails: true shows them).`;

/** A server with gwrun's tools and resources. */
export function gwrunServer(options: McpOptions): McpServer {
  const server = new McpServer(
    { name: "gwrun", version: GWRUN_VERSION },
    { instructions: INSTRUCTIONS },
  );
  registerReadTools(server, options);
  registerOutputs(server, options);
  registerRunTools(server, options);
  registerReviewTools(server, options);
  return server;
}

/**
 * Serves one client over stdio until it disconnects (its input ends) or `signal` aborts. Runs
 * it started go on in their own processes either way.
 */
export async function serveStdio(
  options: McpOptions,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
  signal: AbortSignal,
): Promise<"disconnected" | "stopped"> {
  const server = gwrunServer(options);
  const transport = new StdioServerTransport(
    io.stdin as NodeJS.ReadStream,
    io.stdout as NodeJS.WriteStream,
  );
  const ended = new Promise<void>((resolve) => {
    io.stdin.once("end", resolve);
    io.stdin.once("close", resolve);
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.connect(transport);
  await ended;
  await server.close();
  return signal.aborted ? "stopped" : "disconnected";
}
