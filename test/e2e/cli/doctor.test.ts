import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../helpers/cli.js";
import { systemToolDir } from "../../helpers/fake-ffmpeg.js";
import { tempDir } from "../../helpers/manifest.js";

describe("gwrun doctor", () => {
  it("prints Node, ffmpeg and ffprobe with where they came from, sharp, libvips and SQLite", async () => {
    const result = await gwrun(["doctor"], { env: { PATH: tempDir() } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^gwrun \d+\.\d+\.\d+$/);
    expect(lines).toContain(`  node     ${process.version} on ${process.platform} ${process.arch}`);
    expect(result.stdout).toMatch(
      /\n {2}ffmpeg {3}N-\S+ at \S+\/ffmpeg, from @ffmpeg-installer\/ffmpeg, bundled \(no ffmpeg on the PATH\)\n/,
    );
    expect(result.stdout).toMatch(
      /\n {2}ffprobe {2}N-\S+ at \S+\/ffprobe, from @ffprobe-installer/,
    );
    expect(result.stdout).toMatch(/\n {2}sharp {4}\d+\.\d+\.\d+ with libvips \d+\.\d+\.\d+\n/);
    expect(result.stdout).toMatch(/\n {2}sqlite {3}3\.\d+\.\d+ through better-sqlite3 \d+/);
    expect(lines).toContain("every tool a run needs works");
  });

  it("names a system ffmpeg of version 5 or later as the one in use", async () => {
    const system = systemToolDir("ffmpeg", "ffmpeg version 7.1.1-1+b1");
    const result = await gwrun(["doctor"], { env: { PATH: system } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  ffmpeg   7.1.1-1+b1 at ${path.join(system, "ffmpeg")}, from the system PATH (version 5 or later)\n`,
    );
  });

  it("--json gives each tool's path, version and source, and ok", async () => {
    const result = await gwrun(["doctor", "--json"], { env: { PATH: tempDir() } });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      node: { version: process.version, platform: process.platform, arch: process.arch },
      ffmpeg: { tool: "ffmpeg", ok: true, source: "bundled", version: expect.any(String) },
      ffprobe: { tool: "ffprobe", ok: true, source: "bundled", path: expect.any(String) },
      sharp: { ok: true, sharp: expect.any(String), libvips: expect.any(String) },
      sqlite: { ok: true, sqlite: expect.stringMatching(/^3\./), driver: expect.any(String) },
      ok: true,
    });
  });

  it("a FFMPEG_PATH that does not run fails with a line saying what to do", async () => {
    const missing = path.join(tempDir(), "ffmpeg");
    const result = await gwrun(["doctor"], { env: { PATH: tempDir(), FFMPEG_PATH: missing } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `  ffmpeg   does not work: ${missing} does not run: spawn ${missing} ENOENT (chosen from FFMPEG_PATH)\n`,
    );
    expect(result.stdout).not.toContain("every tool a run needs works");
    expect(result.stderr).toBe(
      `gwrun doctor: ffmpeg does not work: ${missing} does not run: spawn ${missing} ENOENT\n` +
        "  install ffmpeg 5 or later on the PATH, or set FFMPEG_PATH to a working ffmpeg\n",
    );
    const json = JSON.parse(
      (await gwrun(["doctor", "--json"], { env: { FFMPEG_PATH: missing } })).stdout,
    );
    expect(json).toMatchObject({ ok: false, ffmpeg: { ok: false, source: "variable" } });
  });
});
