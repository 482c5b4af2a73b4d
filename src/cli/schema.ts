import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { ExitCode } from "../api/index.js";
import { resolveFromCwd } from "../core/io.js";
import { FAMILIES, requestJsonSchema } from "../families/index.js";
import { manifestSchema } from "../manifest/index.js";
import { EVENT_STREAM_VERSION, eventLineSchema } from "../ui/index.js";
import { out } from "./output.js";

/** The JSON Schema files gwrun publishes, by file name, as the text written to disk. */
export function renderSchemas(): Map<string, string> {
  const files = new Map<string, string>();
  const toJson = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { unrepresentable: "any", io: "input" });
  const render = (json: object, id: string, title: string) =>
    `${JSON.stringify({ ...json, $id: id, title }, null, 2)}\n`;
  // Top-level `x-` keys are the author's own (YAML anchors), ignored as in compose files.
  const manifest = { ...toJson(manifestSchema), patternProperties: { "^x-": {} } };
  files.set(
    "manifest.schema.json",
    render(manifest, "manifest.schema.json", "gwrun manifest, version 1"),
  );
  files.set(
    "events.schema.json",
    render(
      toJson(eventLineSchema),
      "events.schema.json",
      `gwrun run --json: one line of the event stream, version ${EVENT_STREAM_VERSION}`,
    ),
  );
  for (const family of FAMILIES) {
    files.set(
      `${family.id}.schema.json`,
      render(
        requestJsonSchema(family),
        `${family.id}.schema.json`,
        `${family.title}: ${family.endpoint} request body`,
      ),
    );
  }
  return files;
}

/** `gwrun schema [--out dir]`: writes the JSON Schema of the manifest, each family and `--json` events. */
export async function writeSchemas(dir: string): Promise<ExitCode> {
  await mkdir(resolveFromCwd(dir), { recursive: true });
  for (const [name, text] of renderSchemas()) {
    await writeFile(resolveFromCwd(dir, name), text);
    out(path.join(dir, name));
  }
  return ExitCode.Ok;
}
