import { commandIo, type OutStream } from "../core/io.js";
import { colourLevel, NARROW_COLUMNS, terminalColumns } from "../core/terminal.js";
import { wrapToWidth } from "../core/text-width.js";
import { type Diagnostic, formatDiagnostic } from "../manifest/index.js";

/**
 * The CLI's only console writers: results to the command's stdout, diagnostics and progress to
 * its stderr.
 */

export const out = (line = ""): void => {
  commandIo().stdout.write(`${line}\n`);
};

export const err = (line = ""): void => {
  commandIo().stderr.write(`${line}\n`);
};

/** Whether to colour what goes to `stream`: the one rule of `colourLevel`. */
export function useColor(stream: OutStream): boolean {
  return colourLevel(stream) > 0;
}

/** Prints diagnostics with code frames to stderr; returns how many were errors. */
export function printDiagnostics(
  diagnostics: readonly Diagnostic[],
  text: string | undefined,
): number {
  const color = useColor(commandIo().stderr);
  for (const diagnostic of diagnostics) err(`${formatDiagnostic(diagnostic, text, color)}\n`);
  return diagnostics.filter((d) => d.severity === "error").length;
}

/** How wide stdout's lines may be (the terminal's width, or COLUMNS); undefined: any width. */
export function stdoutColumns(): number | undefined {
  return terminalColumns(commandIo().stdout);
}

/** Whether to lay out for a narrow screen: `plan` and `status` then print no wide table. */
export function isNarrow(columns: number | undefined): boolean {
  return columns !== undefined && columns < NARROW_COLUMNS;
}

/** Writes `line` to stdout wrapped at spaces to `columns`, later lines indented; as is if any width goes. */
export function outFitted(line: string, columns: number | undefined): void {
  for (const part of columns === undefined ? [line] : wrapToWidth(line, columns)) out(part);
}
