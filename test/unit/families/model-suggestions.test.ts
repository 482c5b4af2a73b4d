import { describe, expect, it } from "vitest";
import { familyForRequest, suggestModel } from "../../../src/families/index.js";
import { checkInline } from "../../helpers/manifest.js";

describe("suggestions for a model gwrun does not take where it was sent", () => {
  it("a video model sent to the image endpoint is told the endpoint that serves it", () => {
    expect(
      familyForRequest("/v1/images/generations", {
        model: "acme2.7-videoedit",
        video_urls: ["https://cdn.example.com/a.mp4"],
      }),
    ).toEqual({
      error: {
        path: ["endpoint"],
        rule: "endpoint",
        message:
          "acme2.7-videoedit is a video model (video family 8): send it to the video generation endpoint (/v1/videos/generations)",
      },
    });
  });

  it("a family D name sent to the edits endpoint is told where it goes and what edits take", () => {
    const resolved = familyForRequest("/v1/images/edits", {
      model: "acme-imagine-1.0-edit",
      prompt: "bluer",
      image_urls: ["https://cdn.example.com/a.png"],
    });
    expect(resolved).toEqual({
      error: expect.objectContaining({
        message:
          "acme-imagine-1.0-edit is an image model (image family D): send it to the image generation endpoint (/v1/images/generations); /v1/images/edits takes <brand>-imagine-1.0-edit-<suffix>",
      }),
    });
  });

  it("a name that lacks only its free suffix is shown the form, not the placeholder word", () => {
    expect(suggestModel("acme-imagine-1.0")).toBe("acme-imagine-1.0-<suffix>");
    expect(suggestModel("acme-imagine-1.0-")).toBe("acme-imagine-1.0-<suffix>");
    expect(suggestModel("acme-imagine-1.0-edit-")).toBe("acme-imagine-1.0-edit-<suffix>");
    expect(suggestModel("vendor-imagine-1.0")).toBe("vendor-imagine-1.0-<suffix>");
  });

  it("a slip in the fixed part keeps the user's own suffix", () => {
    expect(suggestModel("acme-imagin-1.0-fast")).toBe("acme-imagine-1.0-fast");
    expect(suggestModel("acme2.7-imag")).toBe("acme2.7-image");
  });

  it("no suggestion is ever the example's stand-in word", () => {
    for (const name of [
      "acme-imagine-1.0-edit",
      "acme-imagine-1.0-sufix",
      "acme-imagine-1.0-edit-x",
    ]) {
      expect(suggestModel(name) ?? "").not.toMatch(/-suffix$/);
    }
  });

  it("in a manifest, the wrong endpoint is located at endpoint: and says what to write", async () => {
    const checked = await checkInline(`version: 1
jobs:
  - id: restyle
    model: acme2.7-videoedit
    endpoint: images
    video_urls: ["https://cdn.example.com/a.mp4"]
`);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`)).toEqual([
      "5:15 endpoint acme2.7-videoedit is a video model (video family 8): send it to the video generation endpoint (/v1/videos/generations), with endpoint: videos or no endpoint",
    ]);
  });
});
