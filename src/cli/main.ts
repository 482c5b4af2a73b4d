import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { coerceError, ErrorCode, GwError } from "../core/errors.js";
import { storeUnusable } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";
import { exportRun } from "./export.js";
import { FAMILIES_DOC_COMMAND, type FieldsFlags, printFields } from "./fields.js";
import { HELP_AFTER, showUsageAfterErrors } from "./help.js";
import { err, out } from "./output.js";
import { planManifest } from "./plan.js";
import { setUpProcess } from "./process-setup.js";
import { reportRun } from "./report.js";
import { type RetryFlags, type RunFlags, resumeRun, retryRun, runManifest } from "./run.js";
import { type ScheduleFlags, schedule } from "./schedule.js";
import { writeSchemas } from "./schema.js";
import { addSimCommand } from "./sim.js";
import { listRuns, showStatus } from "./status.js";
import { migrateStore, type StoreFlags } from "./store.js";
import { validateManifests, validateRequestFile, validateRequestLines } from "./validate.js";
import { type ViewFlags, viewStore } from "./view.js";
import { addWorkerCommand } from "./worker.js";

const STORE_HELP =
  "PostgreSQL store shared by several hosts, a postgres://… connection string without a password (default: GWRUN_STORE, which may hold one); instead of --db";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command("gwrun")
    .description("Batch runner for a generation gateway: YAML manifests in, verified files out")
    .version(pkg.version)
    .usage(`<manifest> [options]\n       gwrun [options] [command]`)
    .addHelpText("after", HELP_AFTER)
    .exitOverride();

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
    .action(async (manifests: string[], options: { request?: string; jsonl?: boolean }) => {
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
      setExit(await validateManifests(manifests));
    });

  program
    .command("plan")
    .description(
      "show what a run would do against the state database: per job, tasks new, done, in flight, failed or expired, and the cost of what is new",
    )
    .argument("<manifest>", "manifest file")
    .option("--json", "print the plan as JSON: the tasks a run would record, each with its status")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder); never created",
    )
    .option("--store <url>", STORE_HELP)
    .option("--force", "as `run --force` would: tasks done count as new")
    .action(
      async (
        manifest: string,
        options: { json?: boolean; db?: string; store?: string; force?: boolean },
      ) => {
        setExit(await planManifest(manifest, options));
      },
    );

  program
    .command("schema")
    .description(
      "write JSON Schema for the manifest, each model family and the --json event stream",
    )
    .addOption(new Option("--out <dir>", "output folder").default("schemas"))
    .action(async (options: { out: string }) => {
      setExit(await writeSchemas(options.out));
    });

  const runOptions = (command: Command) =>
    command
      .option(
        "--db <file>",
        "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
      )
      .option("--store <url>", STORE_HELP)
      .option("--force", "redo tasks already done")
      .option(
        "--only <jobs>",
        "run only these job ids (comma-separated); a from: job alone starts from its upstream's outputs",
      )
      .option(
        "--base-url <url>",
        'gateway base URL, overriding the manifest ("sim": the simulator)',
      )
      .option("--json", "print every event as one versioned JSON line on stdout (NDJSON)")
      .option("--quiet", "print only failures and the summary");

  runOptions(
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

  runOptions(
    program
      .command("resume")
      .description("continue a run from the manifest snapshot stored with it")
      .argument("[run]", "run id (default: the latest)"),
  ).action(async (run: string | undefined, flags: RunFlags) => {
    setExit(await resumeRun(run, flags));
  });

  runOptions(
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

  program
    .command("status")
    .description("a run's tasks by state and per job, spend, failures with reasons, text answers")
    .argument("[run]", "run id (default: the latest)")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .option("--json", "print as JSON")
    .action(async (run: string | undefined, flags: StoreFlags & { json?: boolean }) => {
      setExit(await showStatus(run, flags));
    });

  program
    .command("report")
    .description(
      "rebuild an output folder's results.jsonl and index.html gallery (every current output in it) from the store",
    )
    .argument(
      "[run]",
      "run id: its folder's record is rebuilt and its own outputs written beside it as run-<id>.jsonl and run-<id>.html (default: the latest run's folder, no run files)",
    )
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .action(async (run: string | undefined, flags: StoreFlags) => {
      setExit(await reportRun(run, flags));
    });

  program
    .command("export")
    .description(
      "copy a run's approved outputs with their provenance sidecars into a delivery folder, with review.csv",
    )
    .argument("[run]", "run id (default: the latest)")
    .requiredOption("--approved <dir>", "the delivery folder (made if missing)")
    .option("--force", "replace files in the delivery folder this export did not write")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .action(
      async (
        run: string | undefined,
        flags: StoreFlags & { approved: string; force?: boolean },
      ) => {
        setExit(await exportRun(run, flags));
      },
    );

  program
    .command("view")
    .description(
      "a local web app to review runs: live progress, a timeline, outputs in a matrix grid, approve or reject",
    )
    .option("--port <n>", "port on 127.0.0.1 (default: any free one)")
    .option("--open", "open it in the browser")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .action(async (flags: ViewFlags) => {
      setExit(await viewStore(flags));
    });

  program
    .command("runs")
    .description("the latest runs: status, start, duration, tick")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .option("--json", "print as JSON")
    .action(async (flags: StoreFlags & { json?: boolean }) => {
      setExit(await listRuns(flags));
    });

  program
    .command("schedule")
    .description(
      "run scheduled manifests at their ticks until stopped, one run per manifest at a time",
    )
    .argument("[manifest...]", "manifests with schedule:")
    .option("--log <file>", "append plain lines to this file instead of stderr")
    .option("--list", "show each manifest's next ticks and its last runs, then exit")
    .option("--json", "with --list: print it as JSON")
    .option(
      "--db <file>",
      "state database (default: GWRUN_DB, else data/gwrun.db of the project folder)",
    )
    .option("--store <url>", STORE_HELP)
    .option("--base-url <url>", 'gateway base URL, overriding the manifests ("sim": the simulator)')
    .action(async (manifests: string[], flags: ScheduleFlags) => {
      setExit(await schedule(manifests, flags));
    });

  program
    .command("fields")
    .description(
      "the request fields of a model's family, or of every family: type, values, default, whether required, rules",
    )
    .argument(
      "[model]",
      "a model id, a family id (image-b) or a text endpoint (chat, responses, messages, native)",
    )
    .option("--json", "print as JSON")
    .option("--markdown <file>", `write it as Markdown (\`${FAMILIES_DOC_COMMAND}\`)`)
    .action(async (model: string | undefined, flags: FieldsFlags) => {
      setExit(await printFields(model, flags));
    });

  program
    .command("store")
    .description("the state store")
    .command("migrate")
    .description(
      "set up a PostgreSQL store's schema, or bring it up to date (`run` does it too when it is missing)",
    )
    .option(
      "--store <url>",
      "the PostgreSQL store, a postgres://… connection string without a password (default: GWRUN_STORE, which may hold one)",
    )
    .action(async (flags: StoreFlags) => {
      out(`gwrun: the store at ${await migrateStore(flags)} is up to date`);
      setExit(ExitCode.Ok);
    });

  addWorkerCommand(program, setExit);
  addSimCommand(program, setExit);
  showUsageAfterErrors(program);
  return program;
}

/** Runs the CLI; the only place errors become exit codes. */
export async function main(argv: readonly string[]): Promise<ExitCode> {
  let code: ExitCode = ExitCode.Ok;
  const program = buildProgram((exit) => {
    code = exit;
  });
  // `gwrun <manifest>` is `gwrun run <manifest>`.
  const known = new Set(
    program.commands.flatMap((command) => [command.name(), ...command.aliases()]),
  );
  const first = argv[0];
  const args =
    first !== undefined && !first.startsWith("-") && !known.has(first) && first !== "help"
      ? ["run", ...argv]
      : [...argv];
  try {
    await program.parseAsync(args, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Invalid;
    }
    const store = error instanceof GwError ? error : storeUnusable(error, "(see --db)");
    if (store?.code === ErrorCode.StoreUnusable) {
      err(`gwrun: ${store.message}`);
      if (store.hint !== undefined) err(`  ${store.hint}`);
      return ExitCode.Store;
    }
    if (error instanceof GwError && error.category === "user") {
      err(`gwrun: ${error.message}`);
      if (error.hint !== undefined) err(`  ${error.hint}`);
      return ExitCode.Invalid;
    }
    if (isFileError(error)) {
      err(
        `gwrun: cannot read ${error.path ?? "file"}: ${error.code === "ENOENT" ? "no such file" : error.code}`,
      );
      return ExitCode.Invalid;
    }
    err(`gwrun: internal error: ${coerceError(error).stack ?? String(error)}`);
    return ExitCode.Failed;
  }
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    (error as NodeJS.ErrnoException).syscall !== undefined
  );
}

setUpProcess();
process.exitCode = await main(process.argv.slice(2));
