import { replyText, type TextContext, type TextFormat } from "../../src/sim/text/index.js";

/** Request bodies of the four text formats, and the simulator's reply data, for sim tests. */

// biome-ignore lint/suspicious/noExplicitAny: the tests walk deep into vendor JSON.
export type Json = Record<string, any>;

export const ctx: TextContext = { id: "resp_test", created: 1_700_000_000, model: "acme-5" };

/** The `data` of the simulator's non-streamed reply. */
export function data(format: TextFormat, body: Json, context = ctx): Json {
  return replyText(format, body, context).data as Json;
}

export const chat = (content: string, extra: Json = {}) => ({
  model: "acme-5",
  messages: [
    { role: "system", content: "You write captions." },
    { role: "user", content },
  ],
  ...extra,
});
export const responses = (text: string, extra: Json = {}) => ({
  model: "acme-5",
  input: [{ role: "user", content: [{ type: "input_text", text }] }],
  ...extra,
});
export const messages = (content: string, extra: Json = {}) => ({
  model: "acme-fast",
  max_tokens: 200,
  messages: [{ role: "user", content }],
  ...extra,
});
export const native = (text: string, extra: Json = {}) => ({
  model: "acme-2.5-flash",
  contents: [{ role: "user", parts: [{ text }] }],
  ...extra,
});

export const BODY: Record<TextFormat, (text: string) => Json> = {
  chat,
  responses,
  messages,
  native,
};
