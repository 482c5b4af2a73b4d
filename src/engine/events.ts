/** What the engine publishes as a run goes; reporters subscribe, they never drive. */
export type RunEnd = "done" | "failed" | "budget" | "balance" | "interrupted";

export interface StateCounts {
  [state: string]: number;
}

export type EngineEvent =
  | { type: "run:started"; runId: number; jobs: number; alreadyDone: number }
  | { type: "task:submitted"; key: string; job: string; label: string; taskId: string }
  | { type: "task:progress"; key: string; label: string; progress: number }
  | { type: "task:completed"; key: string; label: string; cost: number | null; outputs: number }
  | { type: "output:downloaded"; key: string; label: string; path: string; bytes: number }
  | { type: "job:postprocessing"; key: string; job: string; label: string }
  | {
      type: "output:checked";
      key: string;
      label: string;
      index: number;
      ok: boolean;
      problems: string[];
      thumbnail: string | null;
    }
  | { type: "job:done"; key: string; job: string; label: string }
  | { type: "job:failed"; key: string; job: string; label: string; state: string; reason: string }
  | { type: "job:added"; key: string; job: string; label: string; upstream: string }
  | { type: "gateway:retry"; what: string; delayMs: number; reason: string }
  | { type: "gateway:rate-limited"; retryAfterMs: number; ratePerSecond: number }
  | { type: "run:stopping"; reason: RunEnd; message: string }
  | {
      type: "run:finished";
      end: RunEnd;
      counts: StateCounts;
      spent: number;
      unknownSubmits: number;
    };

export type Emit = (event: EngineEvent) => void;
