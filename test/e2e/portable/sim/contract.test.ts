import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../../src/families/check-manifest.js";
import type { CheckedJob } from "../../../../src/families/index.js";
import { outputLinks } from "../../../../src/gateway/index.js";
import { probeMedia } from "../../../../src/media/index.js";
import { tempDir } from "../../../helpers/manifest.js";
import { ROOT } from "../../../helpers/root.js";
import { LONG_ENOUGH_MS, withSimulator } from "../../../helpers/sim.js";

/**
 * The contract, family by family, through gwrun's own client: every job of the family's
 * example manifest is submitted, polled to completion through both query endpoints, and its
 * outputs downloaded and checked against what the family promises for that request.
 */

const MEDIA_FAMILIES = [
  "image-a",
  "image-b",
  "image-c",
  "image-d",
  "image-e",
  "image-edits",
  ...Array.from({ length: 10 }, (_, i) => `video-${i + 1}`),
];

async function jobsOf(family: string): Promise<CheckedJob[]> {
  const checked = await checkManifestFile(
    path.join(ROOT, "manifests/families", `${family}.yaml`),
    {},
  );
  expect(checked.valid).toBe(true);
  return checked.jobs;
}

function ratioOf(body: Record<string, unknown>): number | undefined {
  for (const field of ["aspect_ratio", "size"]) {
    const match = /^(\d+):(\d+)$/.exec(String(body[field] ?? ""));
    if (match !== null) return Number(match[1]) / Number(match[2]);
  }
  return undefined;
}

/** With image inputs, the output ratio may follow the image. */
function hasImageInput(body: Record<string, unknown>): boolean {
  return ["image_urls", "first_frame_image", "image_with_roles", "video_url", "video_urls"].some(
    (field) => body[field] !== undefined,
  );
}

describe.each(MEDIA_FAMILIES)("simulator contract: %s", (familyId) => {
  it("submits, polls to completion by single and batch query, and serves the promised files", async () => {
    const jobs = await jobsOf(familyId);
    const dir = tempDir();
    await withSimulator({ seed: familyId }, async ({ client, clock }) => {
      const submitted = [];
      for (const job of jobs) {
        const receipt = await client.submit(job.endpoint, job.body);
        expect(receipt.taskId).toMatch(/^task_/);
        expect(receipt.status).toBe(familyId === "image-b" ? "processing" : "submitted");
        const early = await client.getTask(receipt.taskId);
        expect(["submitted", "processing"]).toContain(early.status);
        expect(early.estimatedTime).toBeGreaterThan(0);
        submitted.push({ job, taskId: receipt.taskId });
      }
      clock.advance(LONG_ENOUGH_MS);
      const batch = await client.getTasks(submitted.map((s) => s.taskId));
      expect(batch.unknown).toEqual([]);
      for (const { job, taskId } of submitted) {
        const single = await client.getTask(taskId);
        const fromBatch = batch.records.get(taskId);
        expect(single.status).toBe("completed");
        expect(fromBatch?.raw).toEqual(single.raw);
        expect(single.progress).toBe(100);
        expect(single.completed).toBeGreaterThanOrEqual(single.created ?? Number.NaN);
        expect(single.actualTime).toBeGreaterThan(0);
        expect(single.cost).toBeGreaterThan(0);
        const links = outputLinks(single);
        if (job.family === undefined) throw new Error(`${job.job.spec.id} has no family`);
        const expected = job.family.expectedOutputs(job.body);
        if (expected.exact) expect(links).toHaveLength(expected.count);
        else expect(links.length).toBeLessThanOrEqual(expected.count);
        for (const [index, link] of links.entries()) {
          // expires_at is completed + 24 h.
          expect(link.expiresAt).toBe(((single.completed ?? 0) + 86_400) * 1000);
          const file = await client.download(
            link.url,
            path.join(dir, `${job.job.spec.id}-${index}-${taskId.slice(-6)}`),
            { maxBytes: 200 * 1024 * 1024, kind: expected.kind === "video" ? "video" : "image" },
          );
          const ratio = ratioOf(job.body);
          if (expected.kind === "image") {
            const meta = await sharp(file.path).metadata();
            expect(meta.format).toBe("png");
            const size = { width: meta.width, height: meta.height };
            if (expected.sizes !== null) expect(expected.sizes).toContainEqual(size);
            else if (ratio !== undefined && !hasImageInput(job.body))
              expect(size.width / size.height).toBeCloseTo(ratio, 1);
          } else {
            const probe = await probeMedia(file.path);
            const video = probe.streams.find((s) => s.type === "video");
            expect(video?.codec).toBe("h264");
            const size = { width: video?.width, height: video?.height };
            if (expected.sizes !== null) expect(expected.sizes).toContainEqual(size);
            else if (ratio !== undefined && !hasImageInput(job.body))
              expect((size.width ?? 0) / (size.height ?? 1)).toBeCloseTo(ratio, 1);
            if (expected.durationSeconds != null)
              expect(probe.durationSeconds).toBeCloseTo(expected.durationSeconds, 0);
            const audio = probe.streams.some((s) => s.type === "audio");
            if (expected.audio != null) expect(audio).toBe(expected.audio);
          }
        }
      }
    });
  });
});
