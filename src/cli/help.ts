import type { Command } from "commander";
import { EXIT_CODE_MEANINGS } from "../api/index.js";

/** What `gwrun --help` adds after the commands: the shorthand, examples and exit codes. */
export const HELP_AFTER = `
\`gwrun <manifest>\` is short for \`gwrun run <manifest>\`.

Examples:
  gwrun manifests/campaign.yaml       run the demo offline, against the simulator
  gwrun plan manifests/campaign.yaml  what a run would do, as a diff against the store
  gwrun retry --failed                resubmit the latest run's failed tasks, then continue it

Exit codes:
${Object.entries(EXIT_CODE_MEANINGS)
  .map(([code, meaning]) => `  ${code.padEnd(5)}${meaning}`)
  .join("\n")}`;

/** After a usage error, one usage line of the command instead of its whole help. */
export function showUsageAfterErrors(command: Command, parentName?: string): void {
  const name = parentName === undefined ? command.name() : `${parentName} ${command.name()}`;
  const usage =
    parentName === undefined ? "<manifest> [options], gwrun <command> [options]" : command.usage();
  command.showHelpAfterError(`usage: ${name} ${usage}; ${name} --help for more`);
  for (const sub of command.commands) showUsageAfterErrors(sub, name);
}
