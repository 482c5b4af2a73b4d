import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { exportRunOutputs, findRun, reviewedRun } from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { galleryRefresher } from "../view/index.js";
import { answer, asCommand, folderInProject, fromProject, type McpOptions } from "./context.js";
import { projectStore } from "./read-tools.js";

/**
 * `review` and `export`, offered only when the person allowed them (`--allow-review`,
 * `--allow-export`): a decision is recorded as the agent's (`review.by: agent`), and an
 * export writes only into a folder inside the project.
 */

/** Who the record names for a decision made through these tools. */
export const AGENT = "agent";

export function registerReviewTools(server: McpServer, options: McpOptions): void {
  if (options.allowReview) registerReviewTool(server, options);
  if (options.allowExport) registerExportTool(server, options);
}

/** `review`: a decision on one output, recorded as the agent's. */
function registerReviewTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "review",
    {
      title: "Approve or reject an output",
      description:
        "Records a review decision on one output (as the outputs tool lists it: key and output, counted from 1), with an optional note; recorded as the agent's. A person's decision in gwrun view replaces it.",
      inputSchema: {
        key: z.string().min(1).describe("the output's task key"),
        output: z.number().int().min(1).describe("which output of the task, counted from 1"),
        decision: z.enum(["approved", "rejected"]).nullable().describe("null clears it"),
        note: z.string().max(2000).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    ({ key, output, decision, note }) =>
      asCommand(options, () =>
        projectStore(options, async (store) => {
          const recorded = await store.recordReview(
            { key, index: output - 1, decision, note: note ?? null, by: AGENT },
            Date.now(),
          );
          if (!recorded)
            throw new GwError(
              ErrorCode.Usage,
              `no output ${output} of task ${key} is on disk: the outputs tool lists what can be reviewed`,
            );
          // Its folder's results.jsonl and gallery say so at once, as after a decision in view.
          const refresher = galleryRefresher(store, (problem) =>
            options.log.write(`gwrun mcp: ${problem}\n`),
          );
          refresher.reviewed(key);
          await refresher.settle();
          return answer({ key, output, decision, note: note ?? null, by: AGENT });
        }),
      ),
  );
}

/** `export`: approved or selected outputs copied into a folder inside the project. */
function registerExportTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "export",
    {
      title: "Export approved or selected outputs",
      description:
        "Copies a run's approved (or, with selected: true, its best takes') outputs with their provenance sidecars and review.csv into a folder inside the project.",
      inputSchema: {
        dir: z.string().min(1).describe("a folder inside the project, e.g. delivery/"),
        run: z
          .number()
          .int()
          .positive()
          .optional()
          .describe("a run id (default: as gwrun export picks it)"),
        selected: z.boolean().optional().describe("the selected takes instead of the approved"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    ({ dir, run, selected }) =>
      asCommand(options, () =>
        projectStore(options, async (store, at) => {
          const folder = folderInProject(options, dir);
          const ref = run?.toString();
          const found =
            selected === true
              ? await findRun(store, at.location, ref)
              : await reviewedRun(store, at.location, ref, "approved", `export --approved ${dir}`);
          const exported = await exportRunOutputs(store, found, {
            dir: folder,
            project: options.project,
            selected: selected === true,
            force: false,
          });
          const value = {
            run: found.id,
            dir: fromProject(options, folder),
            files: exported.files,
            review_csv: fromProject(options, exported.csv),
            refused: exported.refused,
          };
          const result = answer(
            value,
            `${exported.files.length} outputs of run ${found.id} exported to ${value.dir}${exported.refused.map((each) => `\nnot exported: ${each.what}: ${each.reason}`).join("")}`,
          );
          return exported.refused.length === 0 ? result : { ...result, isError: true };
        }),
      ),
  );
}
