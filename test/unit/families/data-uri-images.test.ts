import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { checkInline } from "../../helpers/manifest.js";

/** A `width`×`height` picture in `format` as a Data URI named `named` (its own format by default). */
async function dataUri(
  format: "png" | "jpeg" | "webp" | "gif",
  width: number,
  height: number,
  named: string = format,
): Promise<string> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: "teal" } })
    .toFormat(format)
    .toBuffer();
  return `data:image/${named};base64,${bytes.toString("base64")}`;
}

/**
 * The diagnostics of one job whose `field` holds `value` (as a list's one item when `list`):
 * "line:col rule message".
 */
async function problemsOf(
  job: string,
  field: string,
  value: string,
  list = false,
): Promise<string[]> {
  const written = list ? `${field}:\n      - "${value}"` : `${field}: "${value}"`;
  const checked = await checkInline(`version: 1
jobs:
  - ${job}
    ${written}
`);
  return checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`);
}

const familyC = "id: ref\n    model: acme-seedance-4-5\n    prompt: a mug";
const familyB = "id: edit\n    model: acme2.7-image\n    prompt: a mug";
const video2 = "id: clip\n    model: acme-1.0\n    prompt: the mug turns";

describe("Data URIs in image fields are read and held to the field's rules", () => {
  describe.each(["png", "jpeg"] as const)("image family C, %s", (format) => {
    it.each([
      [15, 15],
      [45, 15],
      [15, 45],
    ])(`a ${format} of %i×%i px is accepted`, async (width, height) => {
      expect(
        await problemsOf(familyC, "image_urls", await dataUri(format, width, height), true),
      ).toEqual([]);
    });

    it.each([
      [14, 14, "image-size", "is 14×14 px; each side must be at least 15 px"],
      [46, 15, "image-ratio", "is 46×15 px (width/height 3.067); it must be within 0.333 to 3"],
      [15, 46, "image-ratio", "is 15×46 px (width/height 0.326); it must be within 0.333 to 3"],
    ])(`a ${format} of %i×%i px is refused`, async (width, height, rule, message) => {
      expect(
        await problemsOf(familyC, "image_urls", await dataUri(format, width, height), true),
      ).toEqual([`7:9 ${rule} image_urls[0]: data:image/${format};base64,…: ${message}`]);
    });
  });

  describe.each(["png", "jpeg", "webp"] as const)("image family B, %s", (format) => {
    it.each([
      [1920, 240],
      [240, 1920],
    ])(`a ${format} of %i×%i px (ratio 8:1 or 1:8) is accepted`, async (width, height) => {
      expect(
        await problemsOf(familyB, "image_urls", await dataUri(format, width, height), true),
      ).toEqual([]);
    });

    it.each([
      [1921, 240, "is 1921×240 px (width/height 8.004); it must be within 0.125 to 8"],
      [240, 1921, "is 240×1921 px (width/height 0.125); it must be within 0.125 to 8"],
      [239, 400, "is 239×400 px; each side must be at least 240 px"],
    ])(`a ${format} of %i×%i px is refused`, async (width, height, message) => {
      const problems = await problemsOf(
        familyB,
        "image_urls",
        await dataUri(format, width, height),
        true,
      );
      expect(problems).toEqual([
        expect.stringMatching(
          /^7:9 image-(ratio|size) image_urls\[0\]: data:image\/\w+;base64,…: /,
        ),
      ]);
      expect(problems[0]).toContain(message);
    });
  });

  describe.each(["png", "jpeg", "webp"] as const)("video family 2, %s", (format) => {
    it.each([
      ["first_frame_image", 750, 300],
      ["first_frame_image", 300, 750],
      ["image_urls", 750, 300],
      ["image_urls", 300, 750],
    ])(`%s of a ${format} of %i×%i px (2.5:1, short/long 0.4) is accepted`, async (field, width, height) => {
      const value = await dataUri(format, width, height);
      const problems = await problemsOf(video2, field, value, field === "image_urls");
      expect(problems).toEqual([]);
    });

    it.each([
      ["first_frame_image", 751, 300, "6:24 image-ratio first_frame_image"],
      ["first_frame_image", 300, 751, "6:24 image-ratio first_frame_image"],
      ["first_frame_image", 299, 400, "6:24 image-size first_frame_image"],
      ["image_urls", 751, 300, "7:9 image-ratio image_urls[0]"],
      ["image_urls", 300, 751, "7:9 image-ratio image_urls[0]"],
    ])(`%s of a ${format} of %i×%i px is refused`, async (field, width, height, where) => {
      const value = await dataUri(format, width, height);
      const problems = await problemsOf(video2, field, value, field === "image_urls");
      expect(problems).toEqual([
        expect.stringContaining(
          `${where}: data:image/${format};base64,…: is ${width}×${height} px`,
        ),
      ]);
    });
  });

  it("a GIF Data URI is read where the field takes GIF (responses input_image)", async () => {
    const gif = await dataUri("gif", 1, 1);
    const checked = await checkInline(`version: 1
jobs:
  - id: look
    endpoint: responses
    model: acme-5
    input:
      - role: user
        content:
          - { type: input_text, text: what is this? }
          - { type: input_image, image_url: "${gif}" }
`);
    expect(checked.diagnostics).toEqual([]);
  });

  it("a Data URI whose bytes are another format than it names is refused", async () => {
    const jpegAsPng = await dataUri("jpeg", 100, 100, "png");
    expect(await problemsOf(familyC, "image_urls", jpegAsPng, true)).toEqual([
      "7:9 image-format image_urls[0]: data:image/png;base64,…: its bytes are a JPEG image, not PNG: write data:image/jpeg;base64,… or send the image it names",
    ]);
    const gifAsPng = await dataUri("gif", 100, 100, "png");
    const checked = await checkInline(`version: 1
jobs:
  - id: look
    endpoint: responses
    model: acme-5
    input:
      - role: user
        content:
          - { type: input_image, image_url: "${gifAsPng}" }
`);
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      "input[0].content[0].image_url: data:image/png;base64,…: its bytes are a GIF image, not PNG: write data:image/gif;base64,… or send the image it names",
    ]);
  });

  it("a Data URI whose bytes are no image is refused", async () => {
    expect(
      await problemsOf(familyC, "image_urls", "data:image/png;base64,AAAAAAAAAAAAAAAA", true),
    ).toEqual([
      "7:9 image-format image_urls[0]: data:image/png;base64,…: its bytes are not a PNG image (nor any image gwrun can read)",
    ]);
  });

  it("one Data URI in every expansion of a matrix is one problem, with a count", async () => {
    const tiny = await dataUri("png", 1, 1);
    const checked = await checkInline(`version: 1
jobs:
  - id: ref
    model: acme-seedance-4-5
    prompt: a mug
    matrix: { size: ["1:1", "16:9", "9:16"] }
    image_urls: ["${tiny}"]
`);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule}`)).toEqual([
      "7:18 image-size",
    ]);
  });
});
