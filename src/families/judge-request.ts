import type { JudgePass, JudgeSpec } from "../manifest/index.js";
import type { RequestBody } from "./types.js";

/**
 * A judge's request: the question and the pictures in the endpoint's own image form —
 * responses `input_image` blocks (URL or Data URI), messages `image` blocks (`url` or
 * `base64` source), native inline parts (`inline_data`, base64: the contract shows no URL
 * part). Chat has no image form (the contract shows no array form of its content).
 */

/** Endpoints whose requests carry pictures. */
export const JUDGE_ENDPOINTS = ["responses", "messages", "native"] as const;

/** Data URIs stay within the responses format's rule (20 MB); the others state none, so the same. */
export const JUDGE_IMAGE_MAX_BYTES = 20 * 1024 * 1024;

/** Tokens the judge may answer with: a verdict and a sentence of reason. */
export const JUDGE_MAX_TOKENS = 200;

/** A picture as the judge receives it: its link while that works, else its bytes. */
export type JudgeImage =
  | { kind: "url"; url: string }
  | { kind: "data"; mediaType: string; base64: string };

/** The instruction after the question, so the answer can be read. */
export function answerInstruction(pass: JudgePass): string {
  if ("starts_with" in pass)
    return `Begin your answer with "${pass.starts_with}" or "${pass.fails_with ?? "no"}", then give the reason in one sentence.`;
  return `Begin your answer with a score from 0 to ${pass.out_of ?? 10}, then give the reason in one sentence.`;
}

/** The request body (and, for native, the path) asking `question` about `images`. */
export function judgeRequest(
  judge: Pick<JudgeSpec, "model" | "endpoint" | "pass">,
  question: string,
  images: readonly JudgeImage[],
): { body: RequestBody; path: string } {
  const text = `${question}\n\n${answerInstruction(judge.pass)}`;
  switch (judge.endpoint) {
    case "responses":
      return {
        path: "/v1/responses",
        body: {
          model: judge.model,
          max_tokens: JUDGE_MAX_TOKENS,
          input: [
            {
              role: "user",
              content: [
                { type: "input_text", text },
                ...images.map((image) => ({ type: "input_image", image_url: dataUriOr(image) })),
              ],
            },
          ],
        },
      };
    case "messages":
      return {
        path: "/v1/messages",
        body: {
          model: judge.model,
          max_tokens: JUDGE_MAX_TOKENS,
          messages: [
            {
              role: "user",
              content: [
                ...images.map((image) => ({
                  type: "image",
                  source:
                    image.kind === "url"
                      ? { type: "url", url: image.url }
                      : { type: "base64", media_type: image.mediaType, data: image.base64 },
                })),
                { type: "text", text },
              ],
            },
          ],
        },
      };
    case "native":
      return {
        path: `/v1beta/models/${encodeURIComponent(judge.model)}:generateContent`,
        body: {
          model: judge.model,
          contents: [
            {
              role: "user",
              parts: [
                { text },
                ...images.flatMap((image) =>
                  image.kind === "data"
                    ? [{ inline_data: { mime_type: image.mediaType, data: image.base64 } }]
                    : [],
                ),
              ],
            },
          ],
          generationConfig: { maxOutputTokens: JUDGE_MAX_TOKENS },
        },
      };
    case "chat":
      throw new Error("the chat format carries no pictures");
    default: {
      const never: never = judge.endpoint;
      throw new Error(`unknown judge endpoint ${String(never)}`);
    }
  }
}

/** Whether the endpoint takes a picture by its link (native takes bytes only). */
export function takesImageLinks(endpoint: JudgeSpec["endpoint"]): boolean {
  return endpoint === "responses" || endpoint === "messages";
}

function dataUriOr(image: JudgeImage): string {
  return image.kind === "url" ? image.url : `data:${image.mediaType};base64,${image.base64}`;
}
