import { Text } from "ink";
import { barCells, type Ended } from "../format.js";

/** The colour of each way a task ends, wherever it is counted. */
export const ENDED_COLOUR = { done: "green", failed: "red", skipped: "yellow" } as const;

/** A bar of `width` cells for `total` tasks: done, failed and skipped in their colours. */
export function Bar({ ended, total, width }: { ended: Ended; total: number; width: number }) {
  const cells = barCells(ended, total, width);
  return (
    <>
      <Text color={ENDED_COLOUR.done}>{"█".repeat(cells.done)}</Text>
      <Text color={ENDED_COLOUR.failed}>{"█".repeat(cells.failed)}</Text>
      <Text color={ENDED_COLOUR.skipped}>{"█".repeat(cells.skipped)}</Text>
      {"░".repeat(cells.left)}
    </>
  );
}
