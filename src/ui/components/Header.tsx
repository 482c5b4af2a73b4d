import { Text } from "ink";
import { cutToWidth, displayWidth } from "../../core/text-width.js";
import { STATUS_BY_END } from "../../engine/index.js";
import { formatDuration, formatSpend } from "../format.js";
import type { RunView } from "../run-view.js";

/** Run name and id, elapsed time, ETA (or how the run ends), spend against the budget. */
export function Header({ view, columns }: { view: RunView; columns: number }) {
  const over = view.maxCost !== null && view.spent >= view.maxCost;
  const name = `${view.name || "gwrun"}${view.runId === null ? "" : ` · run ${view.runId}`}`;
  const elapsed = `${formatDuration(view.elapsedMs)} elapsed`;
  const status =
    view.phase === "finished"
      ? STATUS_BY_END[view.end ?? "interrupted"]
      : view.phase === "stopping"
        ? "stopping"
        : `ETA ${formatDuration(view.etaMs)}`;
  const spend = formatSpend(view);
  // The simulator's tag is never cut: its outputs are stand-ins, whatever else fits.
  const tag = view.simulator ? "SIMULATOR" : "";
  const room = Math.max(0, columns - spend.length - 3 - (tag === "" ? 0 : tag.length + 3));
  const full = [name, elapsed, status].join(" · ");
  // On a narrow screen the elapsed time gives way first, then the name: how the run stands stays.
  const head =
    displayWidth(full) <= room
      ? full
      : cutToWidth(`${cutToWidth(name, Math.max(1, room - status.length - 3))} · ${status}`, room);
  return (
    <Text wrap="truncate">
      {tag === "" ? (
        ""
      ) : (
        <Text inverse color="yellow">
          {tag}
        </Text>
      )}
      {tag === "" ? "" : " · "}
      <Text bold>{head}</Text>
      {head.length > 0 ? " · " : ""}
      <Text color={over ? "red" : undefined}>{spend}</Text>
    </Text>
  );
}
