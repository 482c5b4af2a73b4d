import { Argument, type Command } from "commander";
import { ExitCode } from "../api/index.js";
import { cutToWidth } from "../core/text-width.js";
import { out } from "./output.js";

/**
 * `gwrun completion bash|zsh|fish`: a completion script read off the program's own table of
 * commands and options, so it never lists a command or flag the CLI does not have.
 */

interface Flag {
  long: string;
  short?: string;
  description: string;
  takesValue: boolean;
}

interface Entry {
  /** The words that lead to it: [] for gwrun itself, ["store"], ["store", "migrate"]. */
  path: string[];
  description: string;
  flags: Flag[];
  commands: string[];
}

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/** Every command of `program`, nested ones too, with its flags (help and version included). */
function entriesOf(command: Command, path: string[] = []): Entry[] {
  const flags: Flag[] = command.options
    .filter((option) => option.long !== undefined && !option.hidden)
    .map((option) => ({
      long: option.long as string,
      ...(option.short === undefined ? {} : { short: option.short }),
      description: option.description,
      takesValue: option.required || option.optional,
    }));
  flags.push({ long: "--help", short: "-h", description: "show help", takesValue: false });
  const children = command.commands.filter(
    (child) => !(child as Command & { _hidden?: boolean })._hidden,
  );
  return [
    {
      path,
      description: command.description(),
      flags,
      // A command's words: its own commands, and the values its argument is chosen from.
      commands: [
        ...children.flatMap((child) => [child.name(), ...child.aliases()]),
        ...command.registeredArguments.flatMap((argument) => argument.argChoices ?? []),
      ],
    },
    ...children.flatMap((child) => entriesOf(child, [...path, child.name()])),
  ];
}

/** `text` as one single-quoted word of bash, zsh and fish alike. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A description short enough for a completion menu: its first clause. */
const brief = (text: string) => {
  const first = text.split(/[;:(]/)[0]?.trim() ?? "";
  return cutToWidth(first, 70);
};

function bash(entries: readonly Entry[]): string {
  const cases = entries.map((entry) => {
    const words = [
      ...entry.commands,
      ...entry.flags.flatMap((f) => [f.long, f.short ?? []].flat()),
    ];
    const valued = entry.flags
      .filter((f) => f.takesValue)
      .flatMap((f) => [f.long, f.short ?? []].flat());
    return `    ${quoted(entry.path.join(" "))}) words=${quoted(words.join(" "))}; valued=${quoted(valued.join(" "))} ;;`;
  });
  return `# gwrun completion for bash: add to ~/.bashrc
#   eval "$(gwrun completion bash)"
_gwrun() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="" words valued i word
  # The commands typed so far, skipping flags and the values they take.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ "$word" == -* ]]; then continue; fi
    _gwrun_words "$path"
    if [[ " $valued " == *" \${COMP_WORDS[i-1]} "* ]]; then continue; fi
    if [[ " $words " == *" $word "* ]]; then path="\${path:+$path }$word"; continue; fi
    # gwrun <manifest> is gwrun run <manifest>.
    if [[ -z "$path" ]]; then path=run; fi
    break
  done
  _gwrun_words "$path"
  # A flag's value, or a manifest: the shell's own file completion.
  if [[ " $valued " == *" $prev "* ]]; then COMPREPLY=(); return; fi
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur" | grep -- '^-')
  else
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur" | grep -v -- '^-')
  fi
}
_gwrun_words() {
  case "$1" in
${cases.join("\n")}
    *) words=""; valued="" ;;
  esac
}
complete -o default -F _gwrun gwrun
`;
}

function zsh(entries: readonly Entry[]): string {
  const item = (name: string, description: string) =>
    quoted(`${name.replaceAll(":", "\\:")}:${brief(description)}`);
  const cases = entries.map((entry) => {
    const commands = entry.commands.map((name) =>
      item(name, describe(entries, [...entry.path, name])),
    );
    const flags = entry.flags.flatMap((f) =>
      [f.long, f.short ?? []].flat().map((name) => item(name, f.description)),
    );
    const valued = entry.flags
      .filter((f) => f.takesValue)
      .flatMap((f) => [f.long, f.short ?? []].flat());
    return `    ${quoted(entry.path.join(" "))}) commands=(${commands.join(" ")}); flags=(${flags.join(" ")}); valued=(${valued.map(quoted).join(" ")}) ;;`;
  });
  return `#compdef gwrun
# gwrun completion for zsh: save as _gwrun in a folder of $fpath, or add to ~/.zshrc
#   eval "$(gwrun completion zsh)"
_gwrun() {
  local path_="" word i
  local -a commands flags valued
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    [[ $word == -* ]] && continue
    _gwrun_words "$path_"
    (( \${valued[(Ie)\${words[i-1]}]} )) && continue
    if (( \${commands[(I)\${word}:*]} )); then path_="\${path_:+$path_ }$word"; continue; fi
    # gwrun <manifest> is gwrun run <manifest>.
    [[ -z $path_ ]] && path_=run
    break
  done
  _gwrun_words "$path_"
  if (( \${valued[(Ie)\${words[CURRENT-1]}]} )); then _files; return; fi
  if [[ \${words[CURRENT]} == -* ]]; then
    _describe -t options 'gwrun option' flags
  else
    _describe -t commands 'gwrun command' commands
    _files
  fi
}
_gwrun_words() {
  case "$1" in
${cases.join("\n")}
    *) commands=(); flags=(); valued=() ;;
  esac
}
if [[ $zsh_eval_context[-1] == loadautoload ]]; then _gwrun "$@"; else compdef _gwrun gwrun; fi
`;
}

function fish(entries: readonly Entry[]): string {
  const lines = [
    "# gwrun completion for fish: gwrun completion fish > ~/.config/fish/completions/gwrun.fish",
    "complete -c gwrun -f",
  ];
  for (const entry of entries) {
    // At the top: no command yet; below: this command's words seen, none of its own commands.
    const at =
      entry.path.length === 0
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${entry.path.at(-1)}${entry.commands.length > 0 ? `; and not __fish_seen_subcommand_from ${entry.commands.join(" ")}` : ""}`;
    for (const name of entry.commands)
      lines.push(
        `complete -c gwrun -n ${quoted(at)} -a ${quoted(name)} -d ${quoted(brief(describe(entries, [...entry.path, name])))}`,
      );
    for (const flag of entry.flags)
      lines.push(
        `complete -c gwrun -n ${quoted(at)} -l ${flag.long.slice(2)}${flag.short === undefined ? "" : ` -s ${flag.short.slice(1)}`}${flag.takesValue ? " -r -F" : ""} -d ${quoted(brief(flag.description))}`,
      );
  }
  // Manifests: files, where a command takes them.
  lines.push("complete -c gwrun -n 'not __fish_use_subcommand' -F");
  return `${lines.join("\n")}\n`;
}

/** The description of the command at `path`. */
function describe(entries: readonly Entry[], path: readonly string[]): string {
  return entries.find((entry) => entry.path.join(" ") === path.join(" "))?.description ?? "";
}

/** The script for `shell`, from `program`'s table. */
export function completionScript(program: Command, shell: Shell): string {
  const entries = entriesOf(program);
  return { bash, zsh, fish }[shell](entries);
}

export function addCompletionCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("completion")
    .description("print a completion script for bash, zsh or fish")
    .addArgument(new Argument("<shell>", "the shell the script is for").choices(SHELLS))
    .action((shell: Shell) => {
      out(completionScript(program, shell).trimEnd());
      setExit(ExitCode.Ok);
    });
}
