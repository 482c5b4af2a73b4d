import type { Command, Help } from "commander";

/**
 * docs/commands.md, rendered from the program's own commander definitions: every command with
 * its arguments, options and descriptions, as `gwrun <command> --help` states them.
 */

/** The command that writes docs/commands.md; named in the file and by the test that keeps it fresh. */
export const COMMANDS_DOC_COMMAND = "npm run docs";

// Descriptions name <id> and the like, which Markdown would read as HTML.
const cell = (text: string) => text.replace(/[|<>]/g, "\\$&").replaceAll("\n", " ");
const code = (text: string) => `\`${text}\``;

/** `gwrun store migrate` for a subcommand, `gwrun run` for a command. */
function fullName(command: Command): string {
  const parent = command.parent;
  return parent === null ? command.name() : `${fullName(parent)} ${command.name()}`;
}

/** Every command below `program`, depth first, in the order `--help` lists them. */
function commandsOf(program: Command, help: Help): Command[] {
  const found: Command[] = [];
  const visit = (parent: Command) => {
    for (const command of help.visibleCommands(parent)) {
      if (command.name() === "help") continue;
      found.push(command);
      visit(command);
    }
  };
  visit(program);
  return found;
}

function section(command: Command, help: Help): string {
  const aliases = command.aliases();
  const lines = [
    `## ${code(fullName(command))}`,
    "",
    `${code(`${fullName(command)} ${command.usage()}`)}${aliases.length === 0 ? "" : ` (also ${aliases.map(code).join(", ")})`}`,
    "",
    help.commandDescription(command),
  ];
  const args = help.visibleArguments(command);
  if (args.length > 0) {
    lines.push("", "| argument | meaning |", "|---|---|");
    for (const argument of args)
      lines.push(
        `| ${code(help.argumentTerm(argument))} | ${cell(help.argumentDescription(argument))} |`,
      );
  }
  const options = help
    .visibleOptions(command)
    .filter((option) => option.long !== "--help" && option.long !== "--version");
  if (options.length > 0) {
    lines.push("", "| option | meaning |", "|---|---|");
    for (const option of options)
      lines.push(`| ${code(help.optionTerm(option))} | ${cell(help.optionDescription(option))} |`);
  }
  return lines.join("\n");
}

/** The whole page, ending in one newline. */
export function renderCommandsMarkdown(program: Command): string {
  const help = program.createHelp();
  const commands = commandsOf(program, help);
  const index = commands.map((command) => {
    const anchor = fullName(command).replaceAll(" ", "-");
    return `- [${code(fullName(command))}](#${anchor}): ${cell(help.commandDescription(command))}`;
  });
  return `${[
    "# Commands",
    "",
    `Generated from gwrun's own command definitions by \`${COMMANDS_DOC_COMMAND}\`; do not edit by hand.`,
    `\`gwrun <manifest>\` is short for \`gwrun run <manifest>\`. What each command prints and does is`,
    "told in [running.md](running.md#what-each-command-does); every command also answers `--help`.",
    "",
    ...index,
    "",
    ...commands.map((command) => section(command, help)).flatMap((text) => [text, ""]),
  ]
    .join("\n")
    .trimEnd()}\n`;
}
