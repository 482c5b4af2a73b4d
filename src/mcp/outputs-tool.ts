import path from "node:path";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { findRun, latestRuns, statusOf } from "../api/index.js";
import { readRecordedSync } from "../core/file-gate.js";
import { maySelect, reviewRecord, selectionsOf, withSelection } from "../postprocess/index.js";
import type { RunRow, Store } from "../store/index.js";
import {
  answer,
  asCommand,
  asProjectCommand,
  fromProject,
  type McpOptions,
  type ToolAnswer,
} from "./context.js";
import { nextSteps } from "./next-steps.js";
import { projectStore } from "./read-tools.js";

/**
 * A run's outputs for an agent: each file relative to the project, with its label, checks,
 * review and sha256 — and, on request, thumbnails as image content so the agent can look.
 * The same lists as resources: `gwrun://runs`, `gwrun://runs/{run}`, `gwrun://runs/{run}/outputs`.
 */

/** Thumbnails sent in one answer at most, and the bytes of each. */
const THUMBNAILS_AT_MOST = 8;
const THUMBNAIL_MAX_BYTES = 2 * 1024 * 1024;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".webp": "image/webp",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".avif": "image/avif",
};

export interface ListedOutput {
  job: string;
  label: string;
  key: string;
  output: number;
  file: string;
  content_type: string | null;
  bytes: number | null;
  sha256: string | null;
  checks: string | null;
  review: { decision: string; note: string | null } | null;
  judge: { verdict: string; score?: number } | null;
  selected?: boolean;
  thumbnail: string | null;
}

/** The run's outputs on record, in the order its tasks were recorded. */
export async function outputsOfRun(
  options: McpOptions,
  store: Store,
  run: RunRow,
): Promise<ListedOutput[]> {
  const selections = maySelect(run)
    ? await selectionsOf(store.reportRows({ run: run.id }))
    : undefined;
  const listed: ListedOutput[] = [];
  const inProject = (file: string | null) =>
    file === null ? null : fromProject(options, path.join(run.output_dir, file));
  for await (const { task, output } of store.reportRows({ run: run.id })) {
    if (output === null || output.path === null) continue;
    const record = withSelection(reviewRecord(run.output_dir, task, output), selections);
    listed.push({
      job: record.job,
      label: record.label,
      key: record.key,
      output: record.output,
      file: inProject(record.file) ?? "",
      content_type: record.content_type,
      bytes: record.bytes,
      sha256: record.sha256,
      checks: record.checks.state,
      review: record.review,
      judge:
        record.judge === null
          ? null
          : {
              verdict: String(record.judge.verdict),
              ...(typeof record.judge.score === "number" ? { score: record.judge.score } : {}),
            },
      ...(record.selected === undefined ? {} : { selected: record.selected }),
      thumbnail: inProject(record.thumbnail),
    });
  }
  return listed;
}

/** A thumbnail as image content: read through the file gate, as the viewer serves it. */
function thumbnailContent(options: McpOptions, file: string): ToolAnswer["content"] {
  const type = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (type === undefined) return [];
  const read = readRecordedSync(path.join(options.project, file), THUMBNAIL_MAX_BYTES);
  if ("problem" in read) return [];
  return [{ type: "image", data: read.bytes.toString("base64"), mimeType: type }];
}

export function registerOutputs(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "outputs",
    {
      title: "A run's outputs",
      description:
        "Every output of a run: its file (relative to the project), label, checks, review, judge and sha256; with thumbnails: true, up to 8 thumbnails as images to look at.",
      inputSchema: {
        run: z.number().int().positive().optional().describe("a run id (default: the latest)"),
        thumbnails: z.boolean().optional().describe("send thumbnails as image content"),
        offset: z.number().int().min(0).optional().describe("outputs to skip (default 0)"),
        limit: z.number().int().min(1).max(500).optional().describe("how many (default 100)"),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false },
    },
    ({ run, thumbnails, offset, limit }) =>
      asCommand(options, () =>
        projectStore(options, async (store, at) => {
          const found = await findRun(store, at.location, run?.toString());
          const all = await outputsOfRun(options, store, found);
          const start = offset ?? 0;
          const page = all.slice(start, start + (limit ?? 100));
          const result = answer({ run: found.id, total: all.length, offset: start, outputs: page });
          if (thumbnails === true)
            for (const each of page.slice(0, THUMBNAILS_AT_MOST))
              if (each.thumbnail !== null)
                result.content.push(...thumbnailContent(options, each.thumbnail), {
                  type: "text",
                  text: `${each.label} output ${each.output}: ${each.file}`,
                });
          return result;
        }),
      ),
  );

  const json = (uri: URL, value: unknown) => ({
    contents: [
      { uri: uri.href, mimeType: "application/json", text: JSON.stringify(value, null, 2) },
    ],
  });
  // A resource that cannot be read is the protocol's error, with the person's message.
  const read = <T>(work: (store: Store, location: string) => Promise<T>) =>
    asProjectCommand(options, () => projectStore(options, (store, at) => work(store, at.location)));
  server.registerResource(
    "runs",
    "gwrun://runs",
    { title: "Runs", description: "The project's latest runs", mimeType: "application/json" },
    async (uri) => json(uri, await read((store) => latestRuns(store, 50))),
  );
  server.registerResource(
    "run",
    new ResourceTemplate("gwrun://runs/{run}", { list: undefined }),
    { title: "A run", description: "A run's status", mimeType: "application/json" },
    async (uri, { run }) =>
      json(
        uri,
        await read(async (store, location) => {
          const found = await findRun(store, location, String(run));
          const status = await statusOf(store, found);
          const shown = { ...status.run, output_dir: fromProject(options, status.run.output_dir) };
          return { ...status, run: shown, next: nextSteps(found, status) };
        }),
      ),
  );
  server.registerResource(
    "run-outputs",
    new ResourceTemplate("gwrun://runs/{run}/outputs", { list: undefined }),
    { title: "A run's outputs", description: "Each output of a run", mimeType: "application/json" },
    async (uri, { run }) =>
      json(
        uri,
        await read(async (store, location) =>
          outputsOfRun(options, store, await findRun(store, location, String(run))),
        ),
      ),
  );
}
