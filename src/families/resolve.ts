import { suggest } from "../core/suggest.js";
import { BRAND, escapeRegExp } from "./common.js";
import { FAMILIES } from "./registry.js";
import type { Family, ModelPattern } from "./types.js";

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

const PATTERNS = FAMILIES.flatMap((family) => family.models);

/**
 * The closest known model id, written with the user's own vendor word. An id with a free part
 * (`<suffix>`) is suggested as its form, never as the example's stand-in word: a name that
 * lacks only its suffix gets `acme-imagine-1.0-<suffix>`, not a made-up "…-suffix".
 */
export function suggestModel(model: string): string | undefined {
  const brand = /^[A-Za-z][A-Za-z]*/.exec(model)?.[0] ?? "acme";
  const shown = (pattern: ModelPattern) =>
    (pattern.label?.replace("<brand>", "acme") ?? pattern.example).replace(/^acme/, brand);
  const stem = PATTERNS.find(({ label }) => {
    const free = label?.indexOf("<suffix>") ?? -1;
    return free > 0 && stemOf(label as string, free).test(model);
  });
  if (stem !== undefined) return shown(stem);
  const examples = PATTERNS.map(({ example }) => example);
  const candidates = [...examples, ...examples.map((example) => example.replace(/^acme/, brand))];
  const match = suggest(model, candidates);
  if (match === undefined) return undefined;
  const pattern = PATTERNS[candidates.indexOf(match) % examples.length] as ModelPattern;
  // A slip in the fixed part of an id with a free suffix: keep the user's own suffix.
  const tail = /-([^-]+)$/.exec(model)?.[1];
  const own = tail === undefined ? undefined : shown(pattern).replace("<suffix>", tail);
  return own !== undefined && pattern.pattern.test(own) ? own : shown(pattern);
}

/** `<brand>-imagine-1.0-<suffix>` cut at its free part: matches `acme-imagine-1.0` and `acme-imagine-1.0-`. */
function stemOf(label: string, free: number): RegExp {
  const fixed = label.slice(0, free).replace(/-$/, "");
  const [before, after = ""] = fixed.split("<brand>") as [string, string?];
  return new RegExp(`^${escapeRegExp(before)}${BRAND}${escapeRegExp(after)}-?$`);
}

/** How the spec names each media endpoint. */
const ENDPOINT_NAMES: Readonly<Record<string, string>> = {
  "/v1/images/generations": "image generation endpoint",
  "/v1/images/edits": "image edit endpoint",
  "/v1/videos/generations": "video generation endpoint",
};

const LANE_WORDS = { image: "an image model", video: "a video model", text: "a text model" };

/**
 * A known model sent to an endpoint that does not serve it: which family it is and where it
 * goes (`how` says how to write that), and what the endpoint it was sent to takes when one
 * family serves it.
 */
export function wrongEndpoint(model: string, family: Family, sentTo: string, how = ""): string {
  const name = ENDPOINT_NAMES[family.endpoint] ?? "endpoint";
  const there = FAMILIES.filter((other) => other.endpoint === sentTo);
  const takes =
    there.length === 1
      ? `; ${sentTo} takes ${(there[0] as Family).models.map((p) => p.label ?? p.example.replace("acme", "<brand>")).join(" or ")}`
      : "";
  const fix = how === "" ? "" : `, ${how}`;
  return `${model} is ${LANE_WORDS[family.lane]} (${family.title}): send it to the ${name} (${family.endpoint})${fix}${takes}`;
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
  const elsewhere = familyFor(model, undefined);
  if (elsewhere !== undefined)
    return {
      error: {
        path: ["endpoint"],
        rule: "endpoint",
        message: wrongEndpoint(model, elsewhere, endpoint),
      },
    };
  const suggestion = suggestModel(model);
  return {
    error: {
      path: ["body", "model"],
      rule: "unknown-model",
      message: `unknown model "${model}" for ${endpoint}${suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`}`,
    },
  };
}
