import { Command, CommanderError } from "commander";
import { ExitCode } from "../api/index.js";
import { coerceError, ErrorCode, GwError } from "../core/errors.js";
import { storeUnusable } from "../store/index.js";
import { addCompletionCommand } from "./completion.js";
import { addDoctorCommand } from "./doctor.js";
import { HELP_AFTER, showUsageAfterErrors } from "./help.js";
import { err } from "./output.js";
import { addRecordCommands } from "./record-commands.js";
import { addRunCommands } from "./run-commands.js";
import { addSimCommand } from "./sim.js";
import { GWRUN_VERSION } from "./version.js";
import { addWorkerCommand } from "./worker.js";

/**
 * The command line as a program: its table of commands, and `main`, the only place errors
 * become exit codes. Importing it runs nothing (the bin's `main.ts` does).
 */

/** The program's table of commands; `docs/commands.md` is rendered from it too. */
export function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command("gwrun")
    .description("Batch runner for a generation gateway: YAML manifests in, verified files out")
    .version(GWRUN_VERSION)
    .usage(`<manifest> [options]\n       gwrun [options] [command]`)
    .addHelpText("after", HELP_AFTER)
    .exitOverride();
  addRunCommands(program, setExit);
  addRecordCommands(program, setExit);
  addWorkerCommand(program, setExit);
  addSimCommand(program, setExit);
  addDoctorCommand(program, setExit);
  addCompletionCommand(program, setExit);
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
