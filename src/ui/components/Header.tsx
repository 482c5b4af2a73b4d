import { Text } from "ink";
import { formatDuration, formatSpend, truncate } from "../format.js";
import type { RunView } from "../run-view.js";

/** Run name and id, elapsed time, ETA, spend against the budget. */
export function Header({ view, columns }: { view: RunView; columns: number }) {
  const over = view.maxCost !== null && view.spent >= view.maxCost;
  const parts = [
    `${view.name || "gwrun"}${view.runId === null ? "" : ` · run ${view.runId}`}`,
    `${formatDuration(view.elapsedMs)} elapsed`,
    view.phase === "finished" ? "finished" : `ETA ${formatDuration(view.etaMs)}`,
  ];
  const spend = `spent ${formatSpend(view.spent, view.maxCost)}`;
  const head = truncate(parts.join(" · "), Math.max(0, columns - spend.length - 3));
  return (
    <Text wrap="truncate">
      <Text bold>{head}</Text>
      {head.length > 0 ? " · " : ""}
      <Text color={over ? "red" : undefined}>{spend}</Text>
    </Text>
  );
}
