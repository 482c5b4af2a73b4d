/** The four text wire formats the simulator speaks. */
export type TextFormat = "chat" | "responses" | "messages" | "native";

/** What the server settles per call: the response id, its time (unix seconds) and the model. */
export interface TextContext {
  id: string;
  created: number;
  model: string;
  /** A prompt whose last user turn holds this word (any case) is refused; none when unset. */
  unsafeWord?: string | undefined;
  /** The model declines this call whatever it asks (the server's refusal fault). */
  refuse?: boolean | undefined;
  /** A responses answer opens with a `commentary` message before its `final_answer`. */
  commentary?: boolean | undefined;
  /** A judge's verdict on the pictures the call holds, when it asks for one. */
  verdict?: string | undefined;
}

/** A streamed answer: the content type and the wire chunks, each written separately. */
export interface TextStream {
  contentType: string;
  chunks: string[];
  /** Whether a chunk's bytes are written in two, between the bytes of a multi-byte character. */
  splitCharacters: boolean;
}

/** The request body, already accepted by the family's schema. */
export type Body = Record<string, unknown>;

/** The server-sent events content type. */
export const SSE_TYPE = "text/event-stream; charset=utf-8";
