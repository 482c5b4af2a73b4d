import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { commandIo, resolveFromCwd } from "../core/io.js";

/**
 * Which ffmpeg and ffprobe gwrun runs, decided here only: the binary `FFMPEG_PATH` /
 * `FFPROBE_PATH` names; else the one on the system `PATH` when its version is at least
 * `MIN_SYSTEM_MAJOR` (distributions keep it patched); else the one bundled by the
 * @ffmpeg-installer / @ffprobe-installer packages (a fixed, older static build).
 */

export type MediaTool = "ffmpeg" | "ffprobe";

/** Where a binary was chosen from. */
export type ToolSource = "variable" | "system" | "bundled";

export interface ToolChoice {
  tool: MediaTool;
  /** The binary that is run. */
  path: string;
  source: ToolSource;
  /** Why this one, in words: "FFMPEG_PATH", "the system PATH (version 5 or later)", … */
  reason: string;
}

/** A system ffmpeg older than this is passed over for the bundled one. */
export const MIN_SYSTEM_MAJOR = 5;

export const TOOL_VARIABLES: Readonly<Record<MediaTool, string>> = {
  ffmpeg: "FFMPEG_PATH",
  ffprobe: "FFPROBE_PATH",
};
const PACKAGES: Readonly<Record<MediaTool, string>> = {
  ffmpeg: "@ffmpeg-installer/ffmpeg",
  ffprobe: "@ffprobe-installer/ffprobe",
};
// `-version` of a sound binary answers at once; a hung one must not hang gwrun.
const VERSION_TIMEOUT_MS = 10_000;

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);
// Keyed by tool and PATH: a test or a caller that changes PATH gets a fresh look.
const systemChoices = new Map<string, Promise<ToolChoice | { rejected: string } | undefined>>();

/**
 * The binary to run for `tool`. The variable is read on every call, so a changed
 * `FFMPEG_PATH` applies to the next command; the system binary's version is asked once per
 * PATH. Throws when the bundled package does not support this platform and the system has none.
 */
export async function chooseTool(
  tool: MediaTool,
  env: NodeJS.ProcessEnv = commandIo().env,
): Promise<ToolChoice> {
  const variable = TOOL_VARIABLES[tool];
  const named = env[variable];
  if (named) return { tool, path: named, source: "variable", reason: variable };
  const searchPath = env.PATH ?? "";
  const key = `${tool}\0${searchPath}`;
  let system = systemChoices.get(key);
  if (system === undefined) {
    system = systemChoice(tool, searchPath);
    systemChoices.set(key, system);
  }
  const found = await system;
  if (found !== undefined && !("rejected" in found)) return found;
  const passedOver = found === undefined ? `no ${tool} on the PATH` : found.rejected;
  try {
    const bundled = (require(PACKAGES[tool]) as { path: string }).path;
    return {
      tool,
      path: bundled,
      source: "bundled",
      reason: `${PACKAGES[tool]}, bundled (${passedOver})`,
    };
  } catch (error) {
    const onPath = found === undefined ? undefined : findOnPath(tool, searchPath);
    if (onPath !== undefined) {
      return { tool, path: onPath, source: "system", reason: `the system PATH (${passedOver})` };
    }
    throw new Error(`no ${tool}: none on PATH and ${PACKAGES[tool]} cannot load here`, {
      cause: error,
    });
  }
}

async function systemChoice(
  tool: MediaTool,
  searchPath: string,
): Promise<ToolChoice | { rejected: string } | undefined> {
  const found = findOnPath(tool, searchPath);
  if (found === undefined) return undefined;
  const version = await toolVersion(found).catch(() => undefined);
  const major = version === undefined ? undefined : releaseMajor(version);
  if (version === undefined) return { rejected: `the system's ${found} does not answer -version` };
  if (major === undefined) {
    return { rejected: `the system's ${found} states version ${version}, not a release number` };
  }
  if (major < MIN_SYSTEM_MAJOR) {
    return {
      rejected: `the system's ${found} is version ${version}, older than ${MIN_SYSTEM_MAJOR}`,
    };
  }
  return {
    tool,
    path: found,
    source: "system",
    reason: `the system PATH (version ${MIN_SYSTEM_MAJOR} or later)`,
  };
}

/** The first executable file named `tool` in the folders of `searchPath`. */
function findOnPath(tool: MediaTool, searchPath: string): string | undefined {
  const name = process.platform === "win32" ? `${tool}.exe` : tool;
  for (const folder of searchPath.split(path.delimiter)) {
    if (folder === "") continue;
    const candidate = resolveFromCwd(folder, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * The version a binary states on the first line of `-version` ("ffmpeg version 6.1.1-3 …" gives
 * "6.1.1-3"; a git build gives "N-47683-g0e8eb07980-static"). Rejects when it cannot be run.
 */
export async function toolVersion(file: string): Promise<string> {
  const { cwd, env } = commandIo();
  const { stdout } = await execFileAsync(file, ["-version"], {
    timeout: VERSION_TIMEOUT_MS,
    cwd,
    env,
  });
  const match = /^\S+ version (\S+)/.exec(stdout);
  if (match?.[1] === undefined) throw new Error(`${file} -version printed no version line`);
  return match[1];
}

/** The major release of a version string ("6.1.1-3ubuntu5" → 6, "n7.0" → 7); undefined for git builds. */
export function releaseMajor(version: string): number | undefined {
  const match = /^n?(\d+)(?:\.\d+)*(?:[-+~].*)?$/.exec(version);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
