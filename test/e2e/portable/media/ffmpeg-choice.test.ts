import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chooseTool, inspectMediaTool, releaseMajor } from "../../../../src/media/index.js";
import { systemToolDir } from "../../../helpers/fake-ffmpeg.js";
import { tempDir } from "../../../helpers/manifest.js";

const require = createRequire(import.meta.url);
const BUNDLED_FFMPEG = (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
const BUNDLED_FFPROBE = (require("@ffprobe-installer/ffprobe") as { path: string }).path;

describe("which ffmpeg and ffprobe gwrun runs", () => {
  it("FFMPEG_PATH comes first, even over a current system ffmpeg", async () => {
    const system = systemToolDir("ffmpeg", "ffmpeg version 7.1.1-1");
    const choice = await chooseTool("ffmpeg", { PATH: system, FFMPEG_PATH: "/opt/ff/ffmpeg" });
    expect(choice).toMatchObject({ path: "/opt/ff/ffmpeg", source: "variable" });
    expect(choice.reason).toBe("FFMPEG_PATH");
  });

  it("a system ffmpeg of version 5 or later is taken from the PATH", async () => {
    const system = systemToolDir("ffmpeg", "ffmpeg version 6.1.1-3ubuntu5");
    const choice = await chooseTool("ffmpeg", { PATH: `${tempDir()}${path.delimiter}${system}` });
    expect(choice).toEqual({
      tool: "ffmpeg",
      path: path.join(system, "ffmpeg"),
      source: "system",
      reason: "the system PATH (version 5 or later)",
    });
  });

  it("a system ffprobe older than 5 is passed over for the bundled one, saying why", async () => {
    const system = systemToolDir("ffprobe", "ffprobe version 4.4.2-0ubuntu0.22.04.1");
    const choice = await chooseTool("ffprobe", { PATH: system });
    expect(choice).toMatchObject({ path: BUNDLED_FFPROBE, source: "bundled" });
    expect(choice.reason).toContain("is version 4.4.2-0ubuntu0.22.04.1, older than 5");
  });

  it("a system git build states no release, so the bundled one is taken", async () => {
    const system = systemToolDir("ffmpeg", "ffmpeg version N-47683-g0e8eb07980-static");
    const choice = await chooseTool("ffmpeg", { PATH: system });
    expect(choice).toMatchObject({ path: BUNDLED_FFMPEG, source: "bundled" });
    expect(choice.reason).toContain("not a release number");
  });

  it("with none on the PATH the bundled binaries are chosen, and they run", async () => {
    const empty = { PATH: tempDir() };
    expect(await chooseTool("ffmpeg", empty)).toMatchObject({
      path: BUNDLED_FFMPEG,
      source: "bundled",
      reason: "@ffmpeg-installer/ffmpeg, bundled (no ffmpeg on the PATH)",
    });
    const saved = process.env.PATH;
    process.env.PATH = empty.PATH;
    try {
      const probe = await inspectMediaTool("ffprobe");
      expect(probe).toMatchObject({ ok: true, source: "bundled", path: BUNDLED_FFPROBE });
      expect(probe.ok && probe.version).toMatch(/^N-\d+-g[0-9a-f]+/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("reads the major release of the version lines ffmpeg builds print", () => {
    expect(releaseMajor("6.1.1-3ubuntu5")).toBe(6);
    expect(releaseMajor("5.1.6-0+deb12u1")).toBe(5);
    expect(releaseMajor("n7.0")).toBe(7);
    expect(releaseMajor("7.1")).toBe(7);
    expect(releaseMajor("4.4.2-0ubuntu0.22.04.1")).toBe(4);
    expect(releaseMajor("N-47683-g0e8eb07980-static")).toBeUndefined();
    expect(releaseMajor("git-2024-01-01")).toBeUndefined();
  });
});
