import { performance } from "node:perf_hooks";
import chalk from "chalk";
import { render } from "ink";
import type { InStream, OutStream } from "../core/io.js";
import { colourLevel } from "../core/terminal.js";
import type { EngineEvent } from "../engine/index.js";
import { Dashboard } from "./components/Dashboard.js";
import type { Reporter } from "./reporter.js";
import { applyEvent, createRunState } from "./run-state.js";
import { viewOf } from "./run-view.js";
import { pressKey, type QPress, qWaits, type StopKey } from "./stop-keys.js";

export interface DashboardOptions {
  /** The terminal it draws on (stderr: stdout stays for results). */
  stream: OutStream;
  stdin: InStream;
  now: () => number;
  cwd: string;
  /** Ctrl-C, or `q` pressed twice: the same stop as SIGINT. */
  onStop: () => void;
  galleryExists: (file: string) => boolean;
  /** The state database when the next command must name it. */
  db?: string;
  /** Frames per second at most. */
  fps?: number;
}

/** Redraw at least this often, for the clocks (and however slow drawing is). */
const IDLE_REDRAW_MS = 1000;
/** Drawing may take at most this share of the time: a slow terminal gets fewer frames. */
const DRAW_SHARE = 0.02;

/**
 * Whether to draw now, `sinceMs` after the last frame, which took `costMs` to draw: when
 * something `changed` and drawing has had its rest, or for the clocks once a second. A slow
 * frame (the first one warms React and the layout up) holds the screen back a second at most.
 */
export function drawDue(frame: {
  changed: boolean;
  urgent: boolean;
  sinceMs: number;
  costMs: number;
}): boolean {
  if (frame.urgent) return true;
  const rest = Math.min(IDLE_REDRAW_MS, frame.costMs / DRAW_SHARE);
  return frame.sinceMs >= (frame.changed ? rest : IDLE_REDRAW_MS);
}

/**
 * The Ink dashboard. Events only fold into the state; a timer draws from it at most `fps`
 * times a second, so the cost to the engine does not grow with the number of events.
 */
export function dashboardReporter(options: DashboardOptions): Reporter {
  const state = createRunState();
  const fps = options.fps ?? 10;
  const keys = options.stdin.isTTY === true;
  let notice: string | null = null;
  let drawnVersion = -1;
  let drawnAt = 0;
  /** A resize or a key press: draw at the next tick. */
  let urgent = false;
  let galleryExists = false;
  let qPressed: QPress = null;
  let drawnAsking = false;
  const onKey = (key: StopKey) => {
    const pressed = pressKey(qPressed, key, options.now());
    qPressed = pressed.pressed;
    state.version += 1;
    urgent = true;
    if (pressed.stop) options.onStop();
  };
  const element = () => {
    const now = options.now();
    drawnVersion = state.version;
    drawnAt = now;
    drawnAsking = qWaits(qPressed, now);
    return (
      <Dashboard
        view={viewOf(state, now, options.cwd)}
        columns={options.stream.columns ?? 80}
        rows={options.stream.rows ?? 24}
        keys={keys}
        onKey={onKey}
        qPressed={drawnAsking}
        notice={notice}
        galleryExists={galleryExists}
        db={options.db}
      />
    );
  };
  // Ink colours through chalk, which would ask stdout and ignore NO_COLOR: the rule is ours.
  chalk.level = colourLevel(options.stream);
  // Ink types its streams as the process's; it is given a terminal's (see `reporterKind`).
  const ink = render(element(), {
    stdout: options.stream as NodeJS.WriteStream,
    stderr: options.stream as NodeJS.WriteStream,
    stdin: options.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: fps,
  });
  let drawCostMs = 0;
  const draw = () => {
    const now = options.now();
    // The "press q again" line goes as soon as the first q has expired.
    const changed = state.version !== drawnVersion || qWaits(qPressed, now) !== drawnAsking;
    if (!drawDue({ changed, urgent, sinceMs: now - drawnAt, costMs: drawCostMs })) return;
    urgent = false;
    const started = performance.now();
    ink.rerender(element());
    drawCostMs = performance.now() - started;
  };
  const timer = setInterval(draw, Math.ceil(1000 / fps));
  const onResize = () => {
    urgent = true;
  };
  options.stream.on("resize", onResize);
  return {
    emit: (event: EngineEvent) => applyEvent(state, event, options.now()),
    notice: (message) => {
      notice = message;
      state.version += 1;
    },
    close: async () => {
      clearInterval(timer);
      options.stream.off("resize", onResize);
      // The gallery is written after the run finishes, just before the reporter closes.
      const gallery = viewOf(state, options.now(), options.cwd).gallery;
      galleryExists =
        state.finishedAt !== null && gallery !== null && options.galleryExists(gallery);
      // The last frame, with the summary, stays on screen.
      ink.rerender(element());
      ink.unmount();
      await ink.waitUntilExit();
    },
  };
}
