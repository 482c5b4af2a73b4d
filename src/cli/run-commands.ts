import type { Command } from "commander";
import type { ExitCode } from "../api/index.js";
import { GwError } from "../core/errors.js";
import { planManifest } from "./plan.js";
import { type RetryFlags, type RunFlags, resumeRun, retryRun, runManifest } from "./run.js";
import { type ScheduleFlags, schedule } from "./schedule.js";
import { withStoreOptions } from "./store-options.js";
import { validateManifests, validateRequestFile, validateRequestLines } from "./validate.js";
import { addWatchCommand } from "./watch.js";

/** The commands that read manifests and run them: validate, plan, run, resume, retry, schedule, watch. */
export function addRunCommands(program: Command, setExit: (code: ExitCode) => void): void {
  // The order here is the order `--help` and docs/commands.md list them in.
  addValidateCommand(program, setExit);
  addPlanCommand(program, setExit);
  addRunCommand(program, setExit);
  addResumeCommand(program, setExit);
  addRetryCommand(program, setExit);
  addScheduleCommand(program, setExit);
  addWatchCommand(program, setExit);
}

/** `gwrun validate`: checks manifests, or raw requests with --request. */
function addValidateCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("validate")
    .description("check manifests (or raw requests) against every rule of their model families")
    .argument("[manifest...]", "manifest files")
    .option(
      "--request <file>",
      'validate one raw request {"endpoint", "body"} from a file, or - for stdin',
    )
    .option(
      "--jsonl",
      "with --request: one request per line, each with an id; one result line each",
    )
    .option("--json", "print the manifests' diagnostics as one JSON object on stdout")
    .action(
      async (
        manifests: string[],
        options: { request?: string; jsonl?: boolean; json?: boolean },
      ) => {
        if (options.request !== undefined) {
          setExit(
            options.jsonl === true
              ? await validateRequestLines(options.request)
              : await validateRequestFile(options.request),
          );
          return;
        }
        if (manifests.length === 0)
          throw new GwError("GW_USAGE", "give at least one manifest, or --request FILE|-");
        setExit(await validateManifests(manifests, { json: options.json }));
      },
    );
}

/** `gwrun plan`: what a run would do, without doing it. */
function addPlanCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("plan")
      .description(
        "show what a run would do against the state database: per job, tasks new, done, in flight, failed or expired, and the cost of what is new",
      )
      .argument("<manifest>", "manifest file")
      .option(
        "--json",
        "print the plan as JSON: the tasks a run would record, each with its status",
      ),
    "; never created",
  )
    .option("--force", "as `run --force` would: tasks done count as new")
    .action(
      async (
        manifest: string,
        options: { json?: boolean; db?: string; store?: string; force?: boolean },
      ) => {
        setExit(await planManifest(manifest, options));
      },
    );
}

/** Adds the options `run`, `resume` and `retry` share, after each command's own. */
function withRunOptions(command: Command): Command {
  return withStoreOptions(command)
    .option("--force", "redo tasks already done")
    .option(
      "--only <jobs>",
      "run only these job ids (comma-separated); a from: job alone starts from its upstream's outputs",
    )
    .option("--base-url <url>", 'gateway base URL, overriding the manifest ("sim": the simulator)')
    .option("--json", "print every event as one versioned JSON line on stdout (NDJSON)")
    .option("--quiet", "print only failures and the summary");
}

/** `gwrun run`: runs a manifest. */
function addRunCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withRunOptions(
    program
      .command("run")
      .description("run a manifest: submit, poll, download, resume where an earlier run stopped")
      .argument("<manifest>", "manifest file")
      .option(
        "--at <time>",
        "run as of this ISO 8601 time: a scheduled manifest runs the tick due then (default: now)",
      )
      .option(
        "--detach",
        "with a PostgreSQL store: record the run and its work, leave it to the fleet's workers, and exit",
      ),
  ).action(async (manifest: string, flags: RunFlags) => {
    setExit(await runManifest(manifest, flags));
  });
}

/** `gwrun resume`: continues a run from its stored manifest. */
function addResumeCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withRunOptions(
    program
      .command("resume")
      .description("continue a run from the manifest snapshot stored with it")
      .argument("[run]", "run id (default: the latest)"),
  ).action(async (run: string | undefined, flags: RunFlags) => {
    setExit(await resumeRun(run, flags));
  });
}

/** `gwrun retry`: resubmits a run's unfinished or rejected tasks, then continues it. */
function addRetryCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withRunOptions(
    program
      .command("retry")
      .description("resubmit a run's failed, expired and/or held tasks, then continue it")
      .argument("[run]", "run id (default: the latest)")
      .option("--failed", "failed, rejected and skipped tasks")
      .option("--expired", "expired tasks")
      .option("--held", "held tasks (their submit may have made the task: this may pay twice)")
      .option("--stuck", "tasks polling gave up on (no result in time): poll them again")
      .option(
        "--rejected",
        "outputs rejected in review: a new take of each (a new task, a new seed where the model takes one); the rejected files stay",
      ),
  ).action(async (run: string | undefined, flags: RetryFlags) => {
    setExit(await retryRun(run, flags));
  });
}

/** `gwrun schedule`: runs scheduled manifests at their ticks until stopped. */
function addScheduleCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("schedule")
      .description(
        "run scheduled manifests at their ticks until stopped, one run per manifest at a time",
      )
      .argument("[manifest...]", "manifests with schedule:")
      .option("--log <file>", "append plain lines to this file instead of stderr")
      .option("--list", "show each manifest's next ticks and its last runs, then exit")
      .option("--json", "with --list: print it as JSON"),
  )
    .option("--base-url <url>", 'gateway base URL, overriding the manifests ("sim": the simulator)')
    .action(async (manifests: string[], flags: ScheduleFlags) => {
      setExit(await schedule(manifests, flags));
    });
}
