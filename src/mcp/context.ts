import { realpathSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { ErrorCode, GwError } from "../core/errors.js";
import { recordedFileRefusal } from "../core/file-gate.js";
import { withCommandIo } from "../core/io.js";
import { isBelow } from "../core/safe-files.js";

/**
 * What every tool of `gwrun mcp` works with: the project it serves, the limits the person who
 * started it set, and the environment it was started with (the gateway's key stays there).
 * Tool calls run as commands of the project (`withCommandIo`), with nothing written to the
 * protocol's stdout.
 */

export interface McpOptions {
  /** The project folder (absolute): every path is taken from it and confined to it. */
  project: string;
  /** `--max-cost`: the most one run (or retry) may be allowed to spend; none: nothing runs. */
  maxCost: number | undefined;
  /** `--allow-review`: the `review` tool records decisions. */
  allowReview: boolean;
  /** `--allow-export`: the `export` tool copies outputs into a folder of the project. */
  allowExport: boolean;
  env: NodeJS.ProcessEnv;
  /** Where a tool call's own messages go (never the protocol's stdout). */
  log: NodeJS.WritableStream;
}

/** A tool's answer: text for any client, and the same value as structured content. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: ({ type: "text"; text: string } | { type: "image"; data: string; mimeType: string })[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function answer(value: Record<string, unknown>, text?: string): ToolAnswer {
  return {
    content: [{ type: "text", text: text ?? JSON.stringify(value, null, 2) }],
    structuredContent: value,
  };
}

/** An error as a tool error: the message (and hint) a person would get from the command. */
export function refusal(error: unknown): ToolAnswer {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof GwError && error.hint !== undefined ? `\n${error.hint}` : "";
  return { content: [{ type: "text", text: `${message}${hint}` }], isError: true };
}

/** Runs `work` as a command of the project: its folder, environment and log. */
export function asProjectCommand<T>(options: McpOptions, work: () => Promise<T>): Promise<T> {
  const io = { stdout: options.log, stderr: options.log, env: options.env, cwd: options.project };
  return withCommandIo(io, work);
}

/** Runs a tool's work as a command of the project; what it throws is a tool error. */
export async function asCommand(
  options: McpOptions,
  work: () => Promise<ToolAnswer>,
): Promise<ToolAnswer> {
  try {
    return await asProjectCommand(options, work);
  } catch (error) {
    return refusal(error);
  }
}

/** A sink for what a tool's work would print: the answer carries what matters. */
export function quietLog(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

/**
 * A file an agent names (a manifest): relative to the project, and a regular file inside it
 * through the file gate (a link leading out is refused as the CLI refuses it).
 */
export function fileInProject(options: McpOptions, named: string): string {
  const file = path.resolve(options.project, named);
  const refused = recordedFileRefusal(file, [options.project]);
  if (refused !== undefined)
    throw new GwError(ErrorCode.Usage, `${named}: ${refused}`, {
      hint: `gwrun mcp serves ${options.project} only: name a file inside it`,
    });
  return file;
}

/** A folder an agent names (an export's): inside the project, made or not yet. */
export function folderInProject(options: McpOptions, named: string): string {
  const folder = path.resolve(options.project, named);
  const real = realpathSync(options.project);
  let existing = folder;
  while (!existsOrRoot(existing)) existing = path.dirname(existing);
  const resolved = path.join(realpathSync(existing), path.relative(existing, folder));
  if (!isBelow(real, resolved) || resolved === real)
    throw new GwError(ErrorCode.Usage, `${named} is not a folder inside the project`, {
      hint: `gwrun mcp writes inside ${options.project} only: name a folder there, e.g. delivery/`,
    });
  return folder;
}

function existsOrRoot(folder: string): boolean {
  try {
    realpathSync(folder);
    return true;
  } catch {
    return path.dirname(folder) === folder;
  }
}

/** A file's path as answers give it: relative to the project. */
export function fromProject(options: McpOptions, file: string): string {
  return path.relative(options.project, file).split(path.sep).join("/");
}
