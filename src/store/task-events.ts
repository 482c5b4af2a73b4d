/**
 * What a store transition reports once it has committed: the task events the run publishes.
 * Transitions return them instead of emitting, so nothing is announced that was rolled back.
 */
export type TaskEvent =
  | { type: "task:submitting"; key: string; job: string; label: string }
  | {
      type: "task:submitted";
      key: string;
      job: string;
      label: string;
      taskId: string;
      /** Milliseconds until its first poll is due: until then nothing is known of its progress. */
      firstPollInMs?: number;
    }
  | { type: "task:progress"; key: string; job: string; label: string; progress: number }
  | {
      type: "task:completed";
      key: string;
      job: string;
      label: string;
      cost: number | null;
      outputs: number;
      /** Links the gateway listed beyond what the request was promised, not downloaded. */
      surplus?: number;
    }
  | {
      type: "output:downloaded";
      key: string;
      job: string;
      label: string;
      path: string;
      bytes: number;
    }
  | {
      type: "output:checked";
      key: string;
      label: string;
      index: number;
      ok: boolean;
      problems: string[];
      thumbnail: string | null;
    }
  | { type: "task:done"; key: string; job: string; label: string }
  | { type: "task:failed"; key: string; job: string; label: string; state: string; reason: string }
  | {
      type: "task:added";
      key: string;
      job: string;
      label: string;
      upstream: string;
      family: string | null;
    };
