import type { EngineEvent, RunResult } from "../engine/index.js";
import type { CheckedManifest } from "../families/index.js";
import { type Diagnostic, formatDiagnostic } from "../manifest/index.js";
import type { Reporter } from "../ui/index.js";
import type { Executed, RunHooks } from "./execute.js";
import type { ExitCode } from "./exit-codes.js";

/**
 * A run started through the API: awaited, it gives the run's outcome; iterated (`for await`),
 * it gives the run's events as they happen, ending when the run ends. Both at once work.
 */

/** What a run tells as it goes: the engine's events, and notices meant for a person. */
export type RunEvent = EngineEvent | { type: "notice"; message: string };

export interface RunOutcome {
  /** What `gwrun` would exit with: 0 all done, 1 some failed, 2 invalid, 3 stopped… */
  exitCode: ExitCode;
  /** The run made or continued; undefined when none started (an invalid manifest). */
  runId: number | undefined;
  /** How it ended, with its tasks by state and its spend; undefined when nothing ran here. */
  result: RunResult | undefined;
  /** Recorded and left to a fleet's workers (`detach`). */
  detached: boolean;
  /** The manifest's errors and warnings, as checked before anything ran. */
  diagnostics: Diagnostic[];
}

/** One reader of the events: those after it started, then done. */
interface Listener {
  queue: RunEvent[];
  wake: (() => void) | undefined;
}

export class RunHandle implements PromiseLike<RunOutcome>, AsyncIterable<RunEvent> {
  readonly #outcome: Promise<RunOutcome>;
  readonly #listeners = new Set<Listener>();
  #settled = false;
  #stopAsked = false;
  #stop: (() => void) | undefined;

  /** `start` runs with the hooks this handle gives; it begins after the caller's current turn. */
  constructor(
    start: (hooks: RunHooks) => Promise<Executed>,
    env: NodeJS.ProcessEnv,
    signal?: AbortSignal,
  ) {
    let diagnostics: Diagnostic[] = [];
    const hooks: RunHooks = {
      checked: (checked: CheckedManifest) => {
        diagnostics = checked.diagnostics;
      },
      say: (message) => this.#publish({ type: "notice", message }),
      reporter: async (): Promise<Reporter> => ({
        emit: (event) => this.#publish(event),
        notice: (message) => this.#publish({ type: "notice", message }),
        close: async () => {},
      }),
      underway: (stop) => {
        this.#stop = stop;
        if (this.#stopAsked) stop();
        return { interrupt: () => this.stop(), dispose: () => {} };
      },
      env,
    };
    if (signal?.aborted === true) this.stop();
    else signal?.addEventListener("abort", () => this.stop(), { once: true });
    // Started on the next turn, so that iterators asked for right away see every event.
    this.#outcome = Promise.resolve()
      .then(() => start(hooks))
      .then((executed) => ({
        exitCode: executed.exit,
        runId: executed.runId,
        result: executed.result,
        detached: executed.detached === true,
        diagnostics,
      }))
      .finally(() => {
        this.#settled = true;
        for (const listener of this.#listeners) listener.wake?.();
      });
  }

  /** Stops the run gracefully: no new submits; what is in flight stays recorded for `resume`. */
  stop(): void {
    this.#stopAsked = true;
    this.#stop?.();
  }

  // biome-ignore lint/suspicious/noThenProperty: a run is awaited for its outcome.
  then<A = RunOutcome, B = never>(
    onResolved?: ((outcome: RunOutcome) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#outcome.then(onResolved, onRejected);
  }

  /** The events from now on, until the run ends; a run that fails throws here too. */
  async *[Symbol.asyncIterator](): AsyncGenerator<RunEvent, void, undefined> {
    const listener: Listener = { queue: [], wake: undefined };
    this.#listeners.add(listener);
    try {
      for (;;) {
        const event = listener.queue.shift();
        if (event !== undefined) {
          yield event;
          continue;
        }
        if (this.#settled) break;
        await new Promise<void>((resolve) => {
          listener.wake = resolve;
        });
        listener.wake = undefined;
      }
      await this.#outcome;
    } finally {
      this.#listeners.delete(listener);
    }
  }

  #publish(event: RunEvent): void {
    for (const listener of this.#listeners) {
      listener.queue.push(event);
      listener.wake?.();
    }
  }
}

/**
 * A diagnostic as `gwrun` prints it: `file:line:col  error message  [rule]`, with a code frame when given the text.
 * @example
 * ```ts
 * const checked = await validate("manifests/campaign.yaml");
 * for (const diagnostic of checked.diagnostics)
 *   console.error(diagnosticText(diagnostic, checked.text));
 * ```
 */
export function diagnosticText(diagnostic: Diagnostic, text?: string): string {
  return formatDiagnostic(diagnostic, text, false);
}
