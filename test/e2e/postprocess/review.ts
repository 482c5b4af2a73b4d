import { readFileSync } from "node:fs";
import path from "node:path";
import type { ReviewRecord } from "../../../src/postprocess/index.js";

/** Jobs for post-processing runs: two 16:9 pictures and a 5 s clip with audio. */
export const REVIEW_JOBS = `jobs:
  - id: hero
    model: acme-image-2
    prompt: "A mug <script>alert('x')</script> & a cup"
    size: "16:9"
    resolution: 1k
    repeat: 2
  - id: clip
    model: acme2.6
    prompt: "A mug on a terrace"
    aspect_ratio: "16:9"
    resolution: 720p
    duration: 5
    audio: true
`;

/** The lines of a folder's results.jsonl (or of another record in it, as `run-<id>.jsonl`). */
export function readResults(outputDir: string, file = "results.jsonl"): ReviewRecord[] {
  return readFileSync(path.join(outputDir, file), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as ReviewRecord);
}
