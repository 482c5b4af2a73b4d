import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./manifest.js";

/**
 * A folder to put on PATH holding a script named `tool` that answers `-version` with `line`
 * as a system ffmpeg would. What it fakes is the version check only: the choice of binary is
 * what tests of it look at, never the media work.
 */
export function systemToolDir(tool: "ffmpeg" | "ffprobe", line: string): string {
  const dir = tempDir();
  const file = path.join(dir, tool);
  writeFileSync(file, `#!/bin/sh\necho '${line} Copyright (c) 2000-2025 the FFmpeg developers'\n`);
  chmodSync(file, 0o755);
  return dir;
}
