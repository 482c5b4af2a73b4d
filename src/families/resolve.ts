import { suggest } from "../core/suggest.js";
import { FAMILIES } from "./registry.js";
import type { Family } from "./types.js";

/** Text jobs name their wire format with `endpoint:`; media jobs are found by model. */
export const TEXT_FAMILY_IDS: Readonly<Record<string, string>> = {
  chat: "text-chat",
  responses: "text-responses",
  messages: "text-messages",
  native: "text-native",
};

/** Endpoint words a passthrough job may use when its model is unknown. */
export const ENDPOINT_PATHS: Readonly<Record<string, string>> = {
  images: "/v1/images/generations",
  edits: "/v1/images/edits",
  videos: "/v1/videos/generations",
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
  native: "/v1beta/models/{model}:generateContent",
};

const byId = new Map(FAMILIES.map((family) => [family.id, family]));

/** The family of a job: by its text endpoint, or by the first family whose pattern matches the model. */
export function familyFor(
  model: string | undefined,
  endpoint: string | undefined,
): Family | undefined {
  if (endpoint !== undefined) {
    const id = TEXT_FAMILY_IDS[endpoint];
    if (id !== undefined) return byId.get(id);
  }
  if (model === undefined) return undefined;
  return FAMILIES.find((family) => family.models.some(({ pattern }) => pattern.test(model)));
}

/** The closest known model id, written with the user's own vendor word. */
export function suggestModel(model: string): string | undefined {
  const brand = /^[A-Za-z][A-Za-z]*/.exec(model)?.[0] ?? "acme";
  const examples = FAMILIES.flatMap((family) => family.models.map(({ example }) => example));
  const candidates = [...examples, ...examples.map((example) => example.replace(/^acme/, brand))];
  const match = suggest(model, candidates);
  return match === undefined ? undefined : match.replace(/^acme/, brand);
}

const fieldCache = new WeakMap<Family, ReadonlySet<string>>();

/** The request fields a family defines (the keys of its schema's object shape). */
export function familyFields(family: Family): ReadonlySet<string> {
  let fields = fieldCache.get(family);
  if (fields === undefined) {
    const shape = (family.schema as unknown as { _zod?: { def?: { shape?: object } } })._zod?.def
      ?.shape;
    fields = new Set(shape === undefined ? [] : Object.keys(shape));
    fieldCache.set(family, fields);
  }
  return fields;
}

/** The family a raw request goes to, by its path and (for media paths) its model. */
export function familyForRequest(
  endpoint: string,
  body: Record<string, unknown>,
):
  | { family: Family; body: Record<string, unknown> }
  | { error: { path: (string | number)[]; rule: string; message: string } } {
  const native = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(
    endpoint,
  );
  if (native !== null) {
    const family = byId.get("text-native");
    if (family !== undefined) {
      const model = decodeURIComponent(native[1] as string);
      return {
        family,
        body: {
          ...body,
          model,
          ...(native[2] === "streamGenerateContent" ? { stream: true } : {}),
        },
      };
    }
  }
  const candidates = FAMILIES.filter((family) => family.endpoint === endpoint);
  if (candidates.length === 0) {
    const paths = [...new Set(FAMILIES.map((family) => family.endpoint))];
    const hint = suggest(endpoint, paths);
    return {
      error: {
        path: ["endpoint"],
        rule: "endpoint",
        message: `unknown endpoint "${endpoint}"${hint === undefined ? "" : ` (did you mean "${hint}"?)`}`,
      },
    };
  }
  if (candidates.length === 1 && (candidates[0] as Family).models.length === 0) {
    return { family: candidates[0] as Family, body };
  }
  const model = typeof body.model === "string" ? body.model : undefined;
  const family =
    model === undefined
      ? undefined
      : candidates.find((f) => f.models.some(({ pattern }) => pattern.test(model)));
  if (family !== undefined) return { family, body };
  if (model === undefined)
    return { error: { path: ["body", "model"], rule: "required", message: "is required" } };
  const suggestion = suggestModel(model);
  return {
    error: {
      path: ["body", "model"],
      rule: "unknown-model",
      message: `unknown model "${model}" for ${endpoint}${suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`}`,
    },
  };
}
