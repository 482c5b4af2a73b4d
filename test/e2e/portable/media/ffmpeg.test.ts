import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  encodeTestClip,
  extractFrame,
  probeMedia,
  runFfmpeg,
} from "../../../../src/media/index.js";
import { tempDir } from "../../../helpers/manifest.js";

describe("runFfmpeg and probeMedia", () => {
  it("encodes a test clip and reads its format, duration, size, streams and a poster", async () => {
    const dir = tempDir();
    const file = path.join(dir, "clip.mp4");
    const clip = { width: 160, height: 90, fps: 12, durationSeconds: 1, background: "6080a0" };
    await encodeTestClip(file, { ...clip, box: 22, top: 10, speed: 40, toneHz: 440 });
    const probe = await probeMedia(file);
    expect(probe).toMatchObject({ formatName: expect.stringContaining("mp4"), durationSeconds: 1 });
    expect(probe.sizeBytes).toBeGreaterThan(0);
    expect(probe.streams).toEqual([
      { type: "video", codec: "h264", width: 160, height: 90, frameRate: 12, durationSeconds: 1 },
      { type: "audio", codec: "aac", durationSeconds: expect.closeTo(1, 1) },
    ]);
    await extractFrame(file, path.join(dir, "poster.png"), 0.5);
    const poster = await probeMedia(path.join(dir, "poster.png"));
    expect(poster.streams).toMatchObject([{ type: "video", width: 160, height: 90 }]);
  });

  it("rejects with ffmpeg's own complaint when a command fails", async () => {
    const command = ["-f", "lavfi", "-i", "no_such_source=s=64x64", "-f", "null", "-"];
    await expect(runFfmpeg(command)).rejects.toThrow(/ffmpeg failed: .*\n.*no_such_source/s);
  });

  it("rejects a file that is not media, naming it", async () => {
    const file = path.join(
      tempDir({ "not-media.txt": "plain text, not a picture\n" }),
      "not-media.txt",
    );
    await expect(probeMedia(file)).rejects.toThrow(/ffprobe cannot read .*not-media\.txt/);
  });

  it("names a missing ffprobe and the variable that points at it", async () => {
    const missing = path.join(tempDir(), "no-such-ffprobe");
    const saved = process.env.FFPROBE_PATH;
    process.env.FFPROBE_PATH = missing;
    try {
      await expect(probeMedia("any.mp4")).rejects.toMatchObject({
        code: "GW_USAGE",
        message: `ffprobe not found or not executable at ${missing}`,
        hint: "FFPROBE_PATH is set: point it at a ffprobe binary or unset it",
      });
    } finally {
      if (saved === undefined) delete process.env.FFPROBE_PATH;
      else process.env.FFPROBE_PATH = saved;
    }
  });

  it("stops ffmpeg when the caller's signal aborts", async () => {
    const controller = new AbortController();
    // An endless source: only the abort ends this command.
    const endless = ["-f", "lavfi", "-i", "testsrc2=s=64x64:r=12", "-f", "null", "-"];
    const running = runFfmpeg(endless, { signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
  });
});
