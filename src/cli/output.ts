import { type Diagnostic, formatDiagnostic } from "../manifest/index.js";

/** The CLI's only console writers: results to stdout, diagnostics and progress to stderr. */

export const out = (line = ""): void => {
  process.stdout.write(`${line}\n`);
};

export const err = (line = ""): void => {
  process.stderr.write(`${line}\n`);
};

/** Colour only on a terminal, and never when NO_COLOR is set. */
export function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && process.env.NO_COLOR === undefined;
}

/** Prints diagnostics with code frames to stderr; returns how many were errors. */
export function printDiagnostics(
  diagnostics: readonly Diagnostic[],
  text: string | undefined,
): number {
  const color = useColor(process.stderr);
  for (const diagnostic of diagnostics) err(`${formatDiagnostic(diagnostic, text, color)}\n`);
  return diagnostics.filter((d) => d.severity === "error").length;
}
