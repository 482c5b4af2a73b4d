import path from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import {
  costOf,
  findRun,
  latestRuns,
  planManifestAt,
  type StoreAt,
  statusOf,
  storeAt,
  validate,
  withExistingStore,
} from "../api/index.js";
import { formatDiagnostic } from "../manifest/index.js";
import { COST_GROUPINGS, type Store } from "../store/index.js";
import { answer, asCommand, fileInProject, fromProject, type McpOptions } from "./context.js";
import { nextSteps } from "./next-steps.js";

/** The tools that read and spend nothing: validate, plan, status, runs, cost. */

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

/** Where manifest text given inline is checked as if it lay: the project's own folder. */
const INLINE_NAME = "manifest-text.yaml";

const manifestArg = z
  .string()
  .min(1)
  .describe("a manifest file, relative to the project (e.g. manifests/campaign.yaml)");
const runArg = z.number().int().positive().optional().describe("a run id (default: the latest)");

/** The project's store, as the command line finds it from the project folder. */
export function projectStore<T>(
  options: McpOptions,
  work: (store: Store, at: StoreAt) => Promise<T>,
): Promise<T> {
  return withExistingStore(storeAt({ project: options.project }), work);
}

export function registerReadTools(server: McpServer, options: McpOptions): void {
  registerValidateTool(server, options);
  registerPlanTool(server, options);
  registerStatusTool(server, options);
  registerRunsTool(server, options);
  registerCostTool(server, options);
}

/** `validate`: a manifest checked, from a file or given inline. */
function registerValidateTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "validate",
    {
      title: "Validate a manifest",
      description:
        "Checks a manifest against the gateway's contract and gwrun's rules without spending anything: each problem at file:line:col with what to do.",
      inputSchema: {
        manifest: manifestArg.optional(),
        text: z
          .string()
          .optional()
          .describe(
            `manifest YAML given inline, checked as if it were ${INLINE_NAME} in the project`,
          ),
      },
      annotations: READ_ONLY,
    },
    ({ manifest, text }) =>
      asCommand(options, async () => {
        const file =
          text !== undefined
            ? path.join(options.project, INLINE_NAME)
            : fileInProject(options, manifest ?? "");
        const checked = await validate(file, text === undefined ? {} : { text });
        const diagnostics = checked.diagnostics.map((each) => ({
          where: `${fromProject(options, each.file)}:${each.line}:${each.col}`,
          severity: each.severity,
          rule: each.rule,
          message: each.message,
        }));
        const shown = checked.diagnostics.map((each) =>
          formatDiagnostic({ ...each, file: fromProject(options, each.file) }, undefined, false),
        );
        const value = {
          valid: checked.valid,
          name: checked.name ?? null,
          jobs: checked.jobs,
          tasks: checked.tasks,
          tasks_upper_bound: checked.tasksUpperBound,
          diagnostics,
        };
        const head = checked.valid
          ? `valid: ${checked.jobs} jobs, ${checked.tasksUpperBound ? "at most " : ""}${checked.tasks} tasks`
          : "invalid: nothing would run";
        return answer(value, [head, ...shown].join("\n"));
      }),
  );
}

/** `plan`: the run a manifest would make against the store, and what it would cost. */
function registerPlanTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "plan",
    {
      title: "Plan a run",
      description:
        "What a run of the manifest would do against the project's store, job by job (new, done, in flight, failed), and what the new tasks are estimated to cost. Spends nothing.",
      inputSchema: { manifest: manifestArg },
      annotations: READ_ONLY,
    },
    ({ manifest }) =>
      asCommand(options, async () => {
        const file = fileInProject(options, manifest);
        const planned = await planManifestAt(file, { onTask: () => {} });
        if (planned.plan === undefined) {
          const shown = planned.manifest.diagnostics.map((each) =>
            formatDiagnostic({ ...each, file: fromProject(options, each.file) }, undefined, false),
          );
          return { ...answer({ valid: false }, shown.join("\n")), isError: true };
        }
        const { groups, totals } = planned.plan;
        const jobs = groups.map((group) => ({
          job: group.job,
          tasks: group.tasks,
          new: group.status.new,
          done: group.status.done,
          in_flight: group.status.in_flight,
          failed: group.status.failed + group.status.expired,
          cost_of_new: group.newWithUnknownCost > 0 ? null : group.newCost,
        }));
        const spend = totals.spend;
        const value = {
          manifest: fromProject(options, file),
          jobs,
          tasks: totals.tasks,
          new: totals.status.new,
          estimated_cost: spend.high ?? null,
          estimated_cost_low: spend.low ?? null,
          new_of_unknown_price: totals.newWithUnknownCost,
          max_cost: planned.plan.maxCost,
        };
        const cost =
          spend.high === null
            ? "estimated cost unknown (no price for some new tasks)"
            : `estimated cost ${spend.low ?? spend.high}–${spend.high}`;
        return answer(
          value,
          `${totals.status.new} of ${totals.tasks} tasks new; ${cost}; max_cost ${planned.plan.maxCost ?? "not set"}`,
        );
      }),
  );
}

/** `status`: how a run stands, and the next steps in the tools' words. */
function registerStatusTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "status",
    {
      title: "A run's status",
      description:
        "How a run stands: tasks by state, what it spent, its failures and what to do next.",
      inputSchema: { run: runArg },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    ({ run }) =>
      asCommand(options, () =>
        projectStore(options, async (store, at) => {
          const found = await findRun(store, at.location, run?.toString());
          const status = await statusOf(store, found);
          const value = {
            run: found.id,
            name: found.name,
            status: found.status,
            exit_code: found.exit_code,
            tasks: status.tasks,
            expected_tasks: status.expected_tasks,
            states: status.states,
            spent: status.spent,
            failures: status.failures.slice(0, 20),
            output_dir: fromProject(options, found.output_dir),
            next: nextSteps(found, status),
          };
          const done = status.states.done ?? 0;
          return answer(
            value,
            `run ${found.id} (${found.name}): ${found.status}, ${done}/${status.expected_tasks} done, spent ${status.spent}${value.next.length > 0 ? `\nnext: ${value.next.join("; ")}` : ""}`,
          );
        }),
      ),
  );
}

/** `runs`: the project's latest runs. */
function registerRunsTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "runs",
    {
      title: "Runs",
      description: "The project's latest runs, newest first, with their status and spend.",
      inputSchema: {
        limit: z.number().int().min(1).max(200).optional().describe("how many (default 20)"),
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    ({ limit }) =>
      asCommand(options, () =>
        projectStore(options, async (store) => {
          const listed = (await latestRuns(store, limit ?? 20)).map((each) => ({
            run: each.id,
            name: each.name,
            status: each.status,
            exit_code: each.exit_code,
            started_at: new Date(each.started_at).toISOString(),
            spent: each.spent,
          }));
          return answer({ runs: listed });
        }),
      ),
  );
}

/** `cost`: what a run, or every run, paid. */
function registerCostTool(server: McpServer, options: McpOptions): void {
  server.registerTool(
    "cost",
    {
      title: "What was paid",
      description:
        "What a run (or, without one, every run) paid, grouped by job, model, family or day, beside the estimates.",
      inputSchema: {
        run: runArg,
        by: z.enum(COST_GROUPINGS).optional().describe("grouping (default job)"),
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    ({ run, by }) =>
      asCommand(options, () =>
        projectStore(options, async (store, at) => {
          const paid = await costOf(store, at.location, run?.toString(), by ?? "job");
          return answer({ ...paid });
        }),
      ),
  );
}
