import { describe, expect, it } from "vitest";
import { judgeRequest, validateRequest } from "../../../src/families/index.js";
import { familyFor } from "../../../src/families/resolve.js";

/**
 * A judge's request carries the picture in each endpoint's own image form,
 * and the family's own rules accept it.
 */

const URL = { kind: "url", url: "https://cdn.example.com/a.png" } as const;
const DATA = { kind: "data", mediaType: "image/png", base64: "iVBORw0KGgo=" } as const;
const pass = { starts_with: "yes" };

describe("a judge's request", () => {
  it("responses: input_text then an input_image block with the link, or a Data URI", () => {
    const { body, path } = judgeRequest(
      { model: "acme-5", endpoint: "responses", pass },
      "Is it a mug?",
      [URL, DATA],
    );
    expect(path).toBe("/v1/responses");
    const [item] = body.input as { role: string; content: Record<string, unknown>[] }[];
    expect(item?.content).toEqual([
      {
        type: "input_text",
        text: expect.stringMatching(/^Is it a mug\?\n\nBegin your answer with "yes" or "no"/),
      },
      { type: "input_image", image_url: URL.url },
      { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
    ]);
    expect(validateRequest(familyFor("acme-5", "responses")!, body)).toEqual([]);
  });

  it("messages: image blocks with a url source, or a base64 source, then the text", () => {
    const { body, path } = judgeRequest(
      { model: "acme-5", endpoint: "messages", pass },
      "Is it a mug?",
      [URL, DATA],
    );
    expect(path).toBe("/v1/messages");
    const [message] = body.messages as { content: Record<string, unknown>[] }[];
    expect(message?.content.slice(0, 2)).toEqual([
      { type: "image", source: { type: "url", url: URL.url } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: DATA.base64 } },
    ]);
    expect(message?.content[2]).toMatchObject({ type: "text" });
    expect(validateRequest(familyFor("acme-5", "messages")!, body)).toEqual([]);
  });

  it("native: the text, then inline_data parts with the bytes; the model in the path", () => {
    const { body, path } = judgeRequest(
      { model: "acme-2.5-flash", endpoint: "native", pass: { score_at_least: 7 } },
      "Rate the mug",
      [DATA],
    );
    expect(path).toBe("/v1beta/models/acme-2.5-flash:generateContent");
    const [content] = body.contents as { parts: Record<string, unknown>[] }[];
    expect(content?.parts).toEqual([
      { text: expect.stringMatching(/Begin your answer with a score from 0 to 10/) },
      { inline_data: { mime_type: "image/png", data: DATA.base64 } },
    ]);
    expect(validateRequest(familyFor("acme-2.5-flash", "native")!, body)).toEqual([]);
  });
});
