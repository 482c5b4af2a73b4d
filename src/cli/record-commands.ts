import { type Command, Option } from "commander";
import { ExitCode, migrateStore, publishMissing, type StoreFlags } from "../api/index.js";
import { commandIo } from "../core/io.js";
import { COST_GROUPINGS, type CostGrouping } from "../store/index.js";
import { INVITE_EXPIRES } from "../view/index.js";
import { showCost } from "./cost.js";
import { exportRun } from "./export.js";
import { FAMILIES_DOC_COMMAND, type FieldsFlags, printFields } from "./fields.js";
import { showJudgeReport } from "./judge-report.js";
import { out } from "./output.js";
import { pruneRecord } from "./prune.js";
import { reportRun } from "./report.js";
import { writeSchemas } from "./schema.js";
import { listRuns, showStatus } from "./status.js";
import { storeOption, withStoreOptions } from "./store-options.js";
import { type ViewFlags, viewStore } from "./view.js";
import { type InviteFlags, inviteToView, listInvites, revokeFromView } from "./view-invites.js";

/** The commands that read and hand over the record: status, runs, report, export, view, and the rest. */
export function addRecordCommands(program: Command, setExit: (code: ExitCode) => void): void {
  // The order here is the order `--help` and docs/commands.md list them in.
  addSchemaCommand(program, setExit);
  addStatusCommand(program, setExit);
  addReportCommand(program, setExit);
  addExportCommand(program, setExit);
  addViewCommand(program, setExit);
  addCostCommand(program, setExit);
  addPublishCommand(program, setExit);
  addJudgeReportCommand(program, setExit);
  addPruneCommand(program, setExit);
  addRunsCommand(program, setExit);
  addFieldsCommand(program, setExit);
  addStoreCommand(program, setExit);
}

/** `gwrun schema`: writes the JSON Schemas. */
function addSchemaCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("schema")
    .description(
      "write JSON Schema for the manifest, each model family and the --json event stream",
    )
    .addOption(new Option("--out <dir>", "output folder").default("schemas"))
    .action(async (options: { out: string }) => {
      setExit(await writeSchemas(options.out));
    });
}

/** `gwrun status`: one run's state. */
function addStatusCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("status")
      .description("a run's tasks by state and per job, spend, failures with reasons, text answers")
      .argument("[run]", "run id (default: the latest)"),
  )
    .option("--json", "print as JSON")
    .action(async (run: string | undefined, flags: StoreFlags & { json?: boolean }) => {
      setExit(await showStatus(run, flags));
    });
}

/** `gwrun report`: rebuilds an output folder's results.jsonl and gallery. */
function addReportCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("report")
      .description(
        "rebuild an output folder's results.jsonl and index.html gallery (every current output in it) from the store",
      )
      .argument(
        "[run]",
        "run id: its folder's record is rebuilt and its own outputs written beside it as run-<id>.jsonl and run-<id>.html (default: the latest run's folder, no run files)",
      ),
  ).action(async (run: string | undefined, flags: StoreFlags) => {
    setExit(await reportRun(run, flags));
  });
}

/** `gwrun export`: copies a run's approved outputs into a delivery folder. */
function addExportCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("export")
      .description(
        "copy a run's approved outputs with their provenance sidecars into a delivery folder, with review.csv",
      )
      .argument("[run]", "run id (default: the latest)")
      .option("--approved <dir>", "the delivery folder (made if missing)")
      .option("--selected <dir>", "deliver the best takes select: picked instead, into this folder")
      .option("--force", "replace files in the delivery folder this export did not write"),
  ).action(
    async (
      run: string | undefined,
      flags: StoreFlags & { approved?: string; selected?: string; force?: boolean },
    ) => {
      setExit(await exportRun(run, flags));
    },
  );
}

/** `gwrun view`: the review web app, and the invitations of a shared one. */
function addViewCommand(program: Command, setExit: (code: ExitCode) => void): void {
  const repeat = (value: string, given: string[] = []) => [...given, value];
  const view = withStoreOptions(
    program
      .command("view")
      .description(
        "a local web app to review runs: live progress, a timeline, outputs in a matrix grid, approve or reject; --share serves it to invited reviewers",
      )
      .option("--port <n>", "port on 127.0.0.1 (default: any free one)")
      .option("--open", "open it in the browser")
      .option("--share", "serve invited reviewers only: every request needs a reviewer's link")
      .option(
        "--listen <addr:port>",
        "the address to listen on (beyond loopback only with --share)",
      )
      .option(
        "--host <name>",
        "a name a TLS reverse proxy forwards as the Host (repeatable)",
        repeat,
      ),
  ).action(async (flags: ViewFlags) => {
    setExit(await viewStore(flags));
  });
  // `gwrun view invite anna --db x`: `view` takes the options it shares with its subcommands
  // wherever they stand, so each subcommand reads them with its parent's.
  withStoreOptions(
    view
      .command("invite")
      .description("a reviewer's link to the shared viewer, shown once; inviting again replaces it")
      .argument("<name>", "the reviewer's name, recorded with each decision")
      .option("--expires <duration>", "how long the link works: 30m, 12h, 7d", INVITE_EXPIRES)
      .option("--port <n>", "the shared viewer's port on 127.0.0.1")
      .option("--listen <addr:port>", "the shared viewer's --listen, for the link")
      .option("--host <name>", "the name reviewers reach it by (https://NAME/)", repeat),
  ).action(async (name: string, _flags: InviteFlags, command: Command) => {
    setExit(await inviteToView(name, command.optsWithGlobals<InviteFlags>()));
  });
  withStoreOptions(
    view
      .command("revoke")
      .description("end a reviewer's link at once")
      .argument("<name>", "the reviewer's name"),
  ).action(async (name: string, _flags: StoreFlags, command: Command) => {
    setExit(await revokeFromView(name, command.optsWithGlobals<StoreFlags>()));
  });
  withStoreOptions(
    view
      .command("invites")
      .description("the reviewers invited: created, expires, revoked (never their links)"),
  )
    .option("--json", "print as JSON")
    .action(async (_flags: StoreFlags, command: Command) => {
      setExit(await listInvites(command.optsWithGlobals<StoreFlags & { json?: boolean }>()));
    });
}

/** `gwrun cost`: what runs paid, grouped. */
function addCostCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("cost")
      .description(
        "what a run paid (default: every run in the store), by job, model, family or day, with the estimate beside it",
      )
      .argument("[run]", "run id (default: every run in the store)"),
  )
    .addOption(new Option("--by <grouping>", "group by").choices(COST_GROUPINGS).default("job"))
    .option("--json", "print { spent, estimate, groups: [{ key, spent, estimate, tasks }] }")
    .action(
      async (run: string | undefined, flags: StoreFlags & { json?: boolean; by: CostGrouping }) => {
        setExit(await showCost(run, flags));
      },
    );
}

/** `gwrun publish`: sends object storage what it lacks of a run. */
function addPublishCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("publish")
      .description(
        "send what object storage (output.publish) lacks of a run's outputs, checked object by object, then its results.jsonl and gallery",
      )
      .argument("[run]", "run id (default: the latest)"),
  ).action(async (run: string | undefined, flags: StoreFlags) => {
    setExit(await publishMissing(run, flags, commandIo().env, out));
  });
}

/** `gwrun judge-report`: a run's judges, their cost and agreement with reviewers. */
function addJudgeReportCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("judge-report")
      .description(
        "a run's judges: their verdicts, what they cost per output, and how often people who reviewed the same outputs agreed",
      )
      .argument("[run]", "run id (default: the latest run)"),
  )
    .option("--json", "print the report as JSON")
    .action(async (run: string | undefined, flags: StoreFlags & { json?: boolean }) => {
      setExit(await showJudgeReport(run, flags));
    });
}

/** `gwrun prune`: shrinks the record. */
function addPruneCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program
      .command("prune")
      .description(
        "shrink the record: drop the logged moves of finished tasks in finished runs (status, reports and sidecars keep all they show)",
      ),
  ).action(async (flags: StoreFlags) => {
    setExit(await pruneRecord(flags));
  });
}

/** `gwrun runs`: the latest runs. */
function addRunsCommand(program: Command, setExit: (code: ExitCode) => void): void {
  withStoreOptions(
    program.command("runs").description("the latest runs: status, start, duration, tick"),
  )
    .option("--json", "print as JSON")
    .action(async (flags: StoreFlags & { json?: boolean }) => {
      setExit(await listRuns(flags));
    });
}

/** `gwrun fields`: the request fields of a model's family, or of every family. */
function addFieldsCommand(program: Command, setExit: (code: ExitCode) => void): void {
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
}

/** `gwrun store migrate`: sets up or updates a PostgreSQL store's schema. */
function addStoreCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("store")
    .description("the state store")
    .command("migrate")
    .description(
      "set up a PostgreSQL store's schema, or bring it up to date (`run` does it too when it is missing)",
    )
    .addOption(storeOption(true))
    .action(async (flags: StoreFlags) => {
      out(`gwrun: ${await migrateStore(flags)}`);
      setExit(ExitCode.Ok);
    });
}
