/** Manifests for end-to-end runs. */

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(", ");

/** 270 small images and 30 short clips, every request distinct. */
export function mixedJobs(images = 270, clips = 30): string {
  const angles = "abcdefghij".split("");
  const shots = Math.ceil(images / angles.length);
  const stills = `jobs:
  - id: stills
    model: acme-image-2
    matrix: { shot: [${range(shots)}], angle: [${angles.join(", ")}] }
    prompt: "A ceramic mug, shot {{shot}} from angle {{angle}}"
    size: "256x256"
`;
  if (clips === 0) return stills;
  return `${stills}  - id: clips
    model: acmeq3
    matrix: { clip: [${range(clips)}] }
    prompt: "Slow orbit around the mug, take {{clip}}"
    image_urls: ["https://example.com/refs/mug.png"]
    resolution: 540p
    duration: 3
`;
}

/** Two pictures and a caption of each, written from its picture (the review loop's tests). */
export const CAPTIONED_SHOTS = `name: captioned
jobs:
  - id: shots
    model: acme-image-2
    matrix: { style: [watercolor, clay] }
    prompt: "a mug, {{style}} style"
    size: "1:1"
    resolution: 1k
  - id: captions
    endpoint: chat
    model: acme-5
    from: shots
    messages:
      - { role: user, content: "A one-line caption for the {{input.vars.style}} mug" }
    max_tokens: 40
    stream: false
`;
