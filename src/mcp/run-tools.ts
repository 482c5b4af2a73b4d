import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { findRun, loadManifest, planManifestAt } from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { formatDiagnostic } from "../manifest/index.js";
import {
  answer,
  asCommand,
  fileInProject,
  fromProject,
  type McpOptions,
  type ToolAnswer,
} from "./context.js";
import { projectStore } from "./read-tools.js";
import { startRunProcess } from "./run-process.js";

/**
 * The tools that spend: `run` and `retry`. Each refuses what the person who started the
 * server did not allow (`--max-cost`): a manifest without `limits.max_cost`, or whose
 * `max_cost` or estimate is above the ceiling. A run goes on in a process of its own; the
 * call answers with its id as soon as it has started.
 */

const SPENDS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };

/** Why the ceiling refuses a run whose manifest allows `maxCost`; undefined when it may run. */
function overCeiling(options: McpOptions, maxCost: number | undefined | null): string | undefined {
  if (options.maxCost === undefined)
    return "gwrun mcp was started without --max-cost, so it runs nothing: the person who starts it sets the most one run may spend (gwrun mcp --max-cost 5)";
  if (maxCost === undefined || maxCost === null)
    return `the manifest sets no limits.max_cost: add limits: { max_cost: N } with N at most ${options.maxCost}, the ceiling gwrun mcp was started with`;
  if (maxCost > options.maxCost)
    return `the manifest's limits.max_cost ${maxCost} is above ${options.maxCost}, the ceiling gwrun mcp was started with: lower it, or ask the person to start gwrun mcp with a higher --max-cost`;
  return undefined;
}

function refused(reason: string): never {
  throw new GwError(ErrorCode.Usage, reason);
}

/** The answer once a run started in its own process has said its id (or ended first). */
async function started(
  options: McpOptions,
  args: readonly string[],
  what: string,
): Promise<ToolAnswer> {
  const first = await startRunProcess(options, args);
  if ("ended" in first)
    return {
      ...answer(
        { run: null, status: "ended", exit_code: first.ended, events: first.events },
        `${what} ended at once (exit ${first.ended})${first.messages === "" ? "" : `:\n${first.messages}`}`,
      ),
      isError: first.ended !== 0,
    };
  if (first.runId === undefined)
    return answer(
      { run: null, status: "starting", events: first.events },
      `${what} is starting: the runs tool lists it`,
    );
  return answer(
    { run: first.runId, status: "running", events: first.events },
    `${what} started as run ${first.runId}: status { run: ${first.runId} } follows it`,
  );
}

export function registerRunTools(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "run",
    {
      title: "Run a manifest",
      description:
        "Starts a run of the manifest in the background and answers with its run id at once; status follows it. Refused without limits.max_cost in the manifest, or when its max_cost or estimated cost is above the ceiling the person set (--max-cost). A run never pays twice for what is done.",
      inputSchema: {
        manifest: z.string().min(1).describe("a manifest file, relative to the project"),
      },
      annotations: SPENDS,
    },
    ({ manifest }) =>
      asCommand(options, async () => {
        const file = fileInProject(options, manifest);
        const planned = await planManifestAt(file, { onTask: () => {} });
        if (planned.plan === undefined) {
          const problems = planned.manifest.diagnostics
            .filter((each) => each.severity === "error")
            .map((each) =>
              formatDiagnostic(
                { ...each, file: fromProject(options, each.file) },
                undefined,
                false,
              ),
            );
          refused(["the manifest is invalid: nothing was run", ...problems].join("\n"));
        }
        const { maxCost, totals } = planned.plan;
        const over = overCeiling(options, maxCost);
        if (over !== undefined) refused(over);
        const high = totals.spend.high;
        if (high !== null && options.maxCost !== undefined && high > options.maxCost)
          refused(
            `its new tasks are estimated at up to ${high}, above ${options.maxCost}, the ceiling gwrun mcp was started with: plan shows them; run fewer (only what is new is paid)`,
          );
        return started(options, ["run", file], `run of ${manifest}`);
      }),
  );

  server.registerTool(
    "retry",
    {
      title: "Retry a run's failed tasks",
      description:
        "Puts a run's failed, expired or review-rejected tasks back and continues the run in the background, within the ceiling the person set. Held tasks (whose submit may have reached the gateway) are left to a person.",
      inputSchema: {
        run: z.number().int().positive().optional().describe("a run id (default: the latest)"),
        failed: z.boolean().optional().describe("failed, rejected and skipped tasks"),
        expired: z.boolean().optional().describe("tasks whose results expired"),
        rejected: z.boolean().optional().describe("outputs rejected in review: new takes"),
      },
      annotations: SPENDS,
    },
    (choice) =>
      asCommand(options, async () => {
        const found = await projectStore(options, (store, at) =>
          findRun(store, at.location, choice.run?.toString()),
        );
        const stored = await loadManifest(found.manifest_path, { text: found.manifest_text });
        const over = overCeiling(options, stored.checked.expanded.settings?.limits.maxCost);
        if (over !== undefined) refused(over);
        if (choice.failed !== true && choice.expired !== true && choice.rejected !== true)
          refused("say what to retry: failed, expired or rejected (true)");
        const kinds = (["failed", "expired", "rejected"] as const).filter((kind) => choice[kind]);
        return started(
          options,
          ["retry", String(found.id), ...kinds.map((kind) => `--${kind}`)],
          `retry of run ${found.id}`,
        );
      }),
  );
}
