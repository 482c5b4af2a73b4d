/**
 * The keys that stop a run on the dashboard. Ctrl-C stops at once, as SIGINT does. `q` is
 * easy to hit by mistake in a long run, so it stops only when pressed again within
 * `Q_AGAIN_MS`, with no other key between.
 */

export type StopKey = "q" | "ctrl-c" | "other";

/** How long a first `q` waits for the second, ms. */
export const Q_AGAIN_MS = 3000;

/** When the `q` waiting for its second was pressed; null when none waits. */
export type QPress = number | null;

/** What a key press at `now` does: whether it stops the run, and the `q` it leaves waiting. */
export function pressKey(
  pressed: QPress,
  key: StopKey,
  now: number,
): { pressed: QPress; stop: boolean } {
  switch (key) {
    case "ctrl-c":
      return { pressed: null, stop: true };
    case "q":
      return qWaits(pressed, now) ? { pressed: null, stop: true } : { pressed: now, stop: false };
    case "other":
      return { pressed: null, stop: false };
    default: {
      const never: never = key;
      throw new Error(`unknown key ${String(never)}`);
    }
  }
}

/** Whether a first `q` still waits for its second at `now`. */
export function qWaits(pressed: QPress, now: number): boolean {
  return pressed !== null && now - pressed < Q_AGAIN_MS;
}
