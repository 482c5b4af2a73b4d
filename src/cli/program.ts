import { Command, CommanderError, type OutputConfiguration } from "commander";
import { ExitCode } from "../api/index.js";
import { coerceError, ErrorCode, GwError } from "../core/errors.js";
import { type CommandIo, commandIo, type OutStream, withCommandIo } from "../core/io.js";
import { GWRUN_VERSION } from "../core/version.js";
import { storeUnusable } from "../store/index.js";
import { addBudgetCommand } from "./budget.js";
import { addCompletionCommand } from "./completion.js";
import { addDoctorCommand } from "./doctor.js";
import { HELP_AFTER, showUsageAfterErrors } from "./help.js";
import { addMcpCommand } from "./mcp.js";
import { err, useColor } from "./output.js";
import { addRecordCommands } from "./record-commands.js";
import { addRunCommands } from "./run-commands.js";
import { addSimCommand } from "./sim.js";
import { addWorkerCommand } from "./worker.js";

/**
 * The command line as a program: its table of commands, and `main`, the only place errors
 * become exit codes. Importing it runs nothing (the bin's `main.ts` does).
 */

/**
 * Commander writes help, the version and its errors to the process's streams unless told:
 * here, to the command's, as wide as Commander makes them (a terminal's width, else 80).
 * Set before the commands are added, which copy it.
 */
const COMMAND_OUTPUT: OutputConfiguration = {
  writeOut: (text) => commandIo().stdout.write(text),
  writeErr: (text) => commandIo().stderr.write(text),
  getOutHelpWidth: () => helpWidth(commandIo().stdout),
  getErrHelpWidth: () => helpWidth(commandIo().stderr),
  getOutHasColors: () => useColor(commandIo().stdout),
  getErrHasColors: () => useColor(commandIo().stderr),
};

function helpWidth(stream: OutStream): number {
  return (stream.isTTY === true ? stream.columns : undefined) ?? 80;
}

/** The program's table of commands; `docs/commands.md` is rendered from it too. */
export function buildProgram(setExit: (code: ExitCode) => void): Command {
  const program = new Command("gwrun")
    .description("Batch runner for a generation gateway: YAML manifests in, verified files out")
    .version(GWRUN_VERSION)
    .usage(`<manifest> [options]\n       gwrun [options] [command]`)
    .addHelpText("after", HELP_AFTER)
    .configureOutput(COMMAND_OUTPUT)
    .exitOverride();
  addRunCommands(program, setExit);
  addRecordCommands(program, setExit);
  addBudgetCommand(program, setExit);
  addWorkerCommand(program, setExit);
  addMcpCommand(program, setExit);
  addSimCommand(program, setExit);
  addDoctorCommand(program, setExit);
  addCompletionCommand(program, setExit);
  showUsageAfterErrors(program);
  return program;
}

/**
 * Runs the CLI with `io` (standard streams, environment, working folder; the process's where
 * left out); the only place errors become exit codes.
 */
export function main(argv: readonly string[], io: Partial<CommandIo> = {}): Promise<ExitCode> {
  // The binary gives none: the process's own are read as they are, and no context is carried
  // along the command's promises (on Node 20 that costs every promise a hook).
  if (Object.keys(io).length === 0) return runCommand(argv);
  return withCommandIo(io, () => runCommand(argv));
}

async function runCommand(argv: readonly string[]): Promise<ExitCode> {
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
    const failure = failureOf(error);
    for (const line of failure.lines) err(line);
    return failure.exit;
  }
}

/** What a command that threw ends with: its exit code, and the lines it prints on stderr. */
export function failureOf(error: unknown): { exit: ExitCode; lines: string[] } {
  const store = error instanceof GwError ? error : storeUnusable(error, "(see --db)");
  const told = (gw: GwError) => [
    `gwrun: ${gw.message}`,
    ...(gw.hint === undefined ? [] : [`  ${gw.hint}`]),
  ];
  if (store?.code === ErrorCode.StoreUnusable) return { exit: ExitCode.Store, lines: told(store) };
  if (error instanceof GwError && error.category === "user")
    return { exit: ExitCode.Invalid, lines: told(error) };
  if (isFileError(error)) {
    const what = error.code === "ENOENT" ? "no such file" : error.code;
    return {
      exit: ExitCode.Invalid,
      lines: [`gwrun: cannot read ${error.path ?? "file"}: ${what}`],
    };
  }
  const stack = coerceError(error).stack ?? String(error);
  return { exit: ExitCode.Failed, lines: [`gwrun: internal error: ${stack}`] };
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    (error as NodeJS.ErrnoException).syscall !== undefined
  );
}
