import {
  chooseTool,
  type MediaTool,
  type ToolChoice,
  type ToolSource,
  toolVersion,
} from "./ffmpeg-choice.js";
import { loadSharp } from "./sharp.js";

/** One media tool as gwrun would run it: the chosen binary and the version it states. */
export type ToolReport =
  | (ToolChoice & { ok: true; version: string })
  | {
      tool: MediaTool;
      ok: false;
      path: string | null;
      source: ToolSource | null;
      reason: string | null;
      problem: string;
    };

/** sharp and the libvips it bundles, or why sharp cannot load. */
export type SharpReport =
  | { ok: true; sharp: string; libvips: string }
  | { ok: false; problem: string };

/** Which ffmpeg and ffprobe gwrun would run here, each asked for its version. */
export async function inspectMediaTool(tool: MediaTool): Promise<ToolReport> {
  let choice: ToolChoice;
  try {
    choice = await chooseTool(tool);
  } catch (error) {
    return { tool, ok: false, path: null, source: null, reason: null, problem: messageOf(error) };
  }
  try {
    return { ...choice, ok: true, version: await toolVersion(choice.path) };
  } catch (error) {
    const { path, source, reason } = choice;
    const problem = `${path} does not run: ${messageOf(error)}`;
    return { tool, ok: false, path, source, reason, problem };
  }
}

/** The versions of sharp and libvips, loading sharp as a run would. */
export async function inspectSharp(): Promise<SharpReport> {
  try {
    const { versions } = await loadSharp();
    return { ok: true, sharp: versions.sharp, libvips: versions.vips };
  } catch (error) {
    return { ok: false, problem: `sharp cannot load: ${messageOf(error)}` };
  }
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n", 1)[0] ?? text;
}
