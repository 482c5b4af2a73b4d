import type { CheckedJob, ImageInputRule } from "../families/index.js";
import { imageValues } from "../families/index.js";
import { INPUT_PLACEHOLDERS } from "../manifest/index.js";
import { bindUpstreamVars } from "./upstream-vars.js";

/**
 * Binding an upstream output into a dependant's request: `{{input.url}}` becomes the output's
 * link while it is valid, else its file as a Data URI — only where the dependant's family
 * accepts Data URIs; `{{input.file}}` is the file as a Data URI; `{{input.text}}` the text.
 * What cannot be bound is a problem that names the reason, and the dependant fails with it.
 */

/** What an upstream output offers a dependant. */
export interface UpstreamOutput {
  /** The upstream's label, for messages. */
  label: string;
  /** A text answer, or a media file (image, clip). */
  kind: "text" | "media";
  /** Its link, while it is valid; null when expired or when it never had one. */
  url: string | null;
  /** Read lazily: only dependants that need the file pay for it. */
  dataUri: () => string;
  text: () => string;
  /** The upstream task's variables (its matrix values and row), read by `{{input.vars.…}}`. */
  vars?: Record<string, unknown>;
}

export interface Bound {
  body: Record<string, unknown>;
  /** Why the request cannot be made; null when it can. */
  problem: string | null;
}

type Step = string | number;

/** The template's body with its `{{input.*}}` placeholders replaced by the output's values. */
export function bindInputs(template: CheckedJob, output: UpstreamOutput): Bound {
  const from = template.job.spec.from as string;
  const placeholders = {
    url: INPUT_PLACEHOLDERS.url(from),
    file: INPUT_PLACEHOLDERS.file(),
    text: INPUT_PLACEHOLDERS.text(from),
  };
  const ruleAt = imageRules(template);
  const problems: string[] = [];
  const visit = (value: unknown, at: Step[]): unknown => {
    if (typeof value === "string") {
      const bound = bindString(value, at);
      if (!bound.includes("{{input.")) return bound;
      const missing: string[] = [];
      const filled = bindUpstreamVars(bound, output.vars ?? {}, missing);
      for (const name of missing)
        problems.push(`${fieldName(at)}: ${output.label} has no variable for ${name}`);
      return filled;
    }
    if (Array.isArray(value)) return value.map((item, index) => visit(item, [...at, index]));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v, [...at, k])]));
    }
    return value;
  };
  const bindString = (value: string, at: Step[]): string => {
    let text = value;
    const field = fieldName(at);
    if (text.includes(placeholders.url)) {
      text = text.replaceAll(placeholders.url, () => {
        if (output.kind === "text") {
          problems.push(
            `${field}: {{input.url}} needs an image or clip, but ${output.label} produced text (use {{input.text}})`,
          );
          return placeholders.url;
        }
        const rule = ruleAt(at, value === placeholders.url);
        // A plain http:// link (a gateway on loopback) where only https:// is taken: send the file.
        const refused = output.url?.startsWith("http://") === true && rule?.httpsOnly === true;
        if (output.url !== null && !refused) return output.url;
        const accepts = rule === undefined ? undefined : rule.dataUri;
        if (accepts === true) return output.dataUri();
        problems.push(
          `${field}: the link of ${output.label} has expired and ${accepts === false ? `${template.family?.title ?? "this model"} accepts only http(s) URLs there` : "the field is not an image field"}, so its file cannot be sent as a Data URI; retry ${output.label} to get a fresh link`,
        );
        return placeholders.url;
      });
    }
    if (text.includes(placeholders.file)) {
      if (output.kind === "text") {
        problems.push(
          `${field}: {{input.file}} needs an image or clip, but ${output.label} produced text (use {{input.text}})`,
        );
      } else {
        text = text.replaceAll(placeholders.file, () => output.dataUri());
      }
    }
    if (text.includes(placeholders.text)) {
      if (output.kind !== "text") {
        problems.push(
          `${field}: {{input.text}} needs a text answer, but ${output.label} produced a media file (use {{input.url}})`,
        );
      } else {
        text = text.replaceAll(placeholders.text, () => output.text());
      }
    }
    return text;
  };
  const body = visit(template.body, []) as Record<string, unknown>;
  return { body, problem: problems.length === 0 ? null : problems.join("; ") };
}

/**
 * The family's image input rule of the field at a path (what it takes: Data URIs, https only);
 * undefined when it is no image field. Passthrough jobs (no family) are trusted with anything.
 */
function imageRules(
  template: CheckedJob,
): (at: Step[], whole: boolean) => ImageInputRule | undefined {
  const family = template.family;
  if (family === undefined)
    return (_at, whole) => (whole ? { path: [], dataUri: true } : undefined);
  const fields = imageValues(family, template.body);
  return (at, whole) => {
    if (!whole) return undefined;
    return fields.find((entry) => sameSteps(entry.path, at))?.rule;
  };
}

function sameSteps(a: readonly Step[], b: readonly Step[]): boolean {
  return a.length === b.length && a.every((step, index) => step === b[index]);
}

function fieldName(at: readonly Step[]): string {
  return (
    at
      .map((step) => (typeof step === "number" ? `[${step}]` : step))
      .join(".")
      .replace(/\.\[/g, "[") || "request"
  );
}
