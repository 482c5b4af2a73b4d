import { commandIo } from "./io.js";

/**
 * What a terminal gwrun writes to can show: whether it gets colour, and how wide it is. Every
 * writer asks here (the dashboard, diagnostics, `plan`, `status`), so one rule holds for all.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** Colour depth as chalk counts it: 0 none, 1 the 16 basic colours, 2 256 colours, 3 truecolor. */
export type ColourLevel = 0 | 1 | 2 | 3;

/**
 * How much colour to write to `stream`. `FORCE_COLOR` (non-empty; 0 or false turn colour off,
 * 2 and 3 ask for more) wins, as in Node and chalk; then `NO_COLOR` (non-empty) turns it off;
 * otherwise a terminal that is not `dumb` gets the basic colours, and a pipe or file none.
 */
export function colourLevel(stream: { isTTY?: boolean }, env: Env = commandIo().env): ColourLevel {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") {
    if (force === "0" || force === "false") return 0;
    const level = Number.parseInt(force, 10);
    return level === 2 || level === 3 ? level : 1;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  return stream.isTTY === true && env.TERM !== "dumb" ? 1 : 0;
}

/**
 * The width in columns of what `stream` shows: the terminal's own, else `COLUMNS`; undefined
 * for a pipe or file without `COLUMNS` (then nothing is laid out to a width).
 */
export function terminalColumns(
  stream: { isTTY?: boolean; columns?: number },
  env: Env = commandIo().env,
): number | undefined {
  if (stream.isTTY === true && stream.columns !== undefined && stream.columns > 0)
    return stream.columns;
  const columns = Number.parseInt(env.COLUMNS ?? "", 10);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** Below this many columns `plan` and `status` lay out narrow: no table wider than the screen. */
export const NARROW_COLUMNS = 100;
