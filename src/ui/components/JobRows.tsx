import { Box, Text } from "ink";
import { cutToWidth, displayWidth, padEndToWidth } from "../../core/text-width.js";
import { plural } from "../../core/words.js";
import { endedOf } from "../format.js";
import type { GroupView } from "../run-view.js";
import { Bar, ENDED_COLOUR } from "./Bar.js";

/**
 * The job rows on screen, in `maxRows` at most. All fit: every job in the manifest's order.
 * Else the jobs with tasks under way come first, then those yet to start, and the finished
 * ones fold into one last line (with the unfinished ones there was no room for).
 */
export function jobRowsShown(
  groups: readonly GroupView[],
  maxRows: number,
): { rows: readonly GroupView[]; fold: string | null } {
  if (groups.length <= maxRows) return { rows: groups, fold: null };
  const unfinished = groups.filter((group) => !group.finished);
  const ordered = [
    ...unfinished.filter((group) => group.active > 0),
    ...unfinished.filter((group) => group.active === 0),
  ];
  const finished = groups.filter((group) => group.finished);
  const rows = ordered.slice(0, Math.max(0, maxRows - 1));
  const parts: string[] = [];
  if (rows.length < ordered.length)
    parts.push(`… and ${plural(ordered.length - rows.length, "more job")} to go`);
  const failing = finished.filter((group) => group.failed > 0).length;
  if (finished.length > 0)
    parts.push(
      failing === 0
        ? `${plural(finished.length, "job")} done`
        : `${plural(finished.length, "job")} finished, ${failing} with failures`,
    );
  return { rows, fold: parts.join(" · ") };
}

/** One row per job id: name, family, its own bar, done/tasks, failed, skipped and active counts. */
export function JobRows({
  groups,
  columns,
  maxRows,
}: {
  groups: readonly GroupView[];
  columns: number;
  maxRows: number;
}) {
  if (maxRows <= 0 || groups.length === 0) return null;
  const { rows, fold } = jobRowsShown(groups, maxRows);
  const nameWidth = Math.min(20, Math.max(...groups.map((g) => displayWidth(g.job))));
  const familyWidth =
    columns >= 60 ? Math.min(14, Math.max(...groups.map((g) => displayWidth(g.family ?? "")))) : 0;
  return (
    <Box flexDirection="column">
      {rows.map((group) => {
        const ended = endedOf(group);
        const failed = ended.failed > 0 ? ` ${ended.failed} failed` : "";
        const skipped = ended.skipped > 0 ? ` ${ended.skipped} skipped` : "";
        const active = group.active > 0 ? ` ${group.active} active` : "";
        const counts = `${group.done}/${group.tasks}`;
        const countsWidth = counts.length + failed.length + skipped.length + active.length;
        const barWidth = Math.min(30, columns - nameWidth - familyWidth - countsWidth - 3);
        return (
          <Text key={group.job} wrap="truncate">
            {padEndToWidth(cutToWidth(group.job, nameWidth), nameWidth)}{" "}
            {familyWidth > 0 ? (
              <Text dimColor>
                {padEndToWidth(cutToWidth(group.family ?? "", familyWidth), familyWidth)}{" "}
              </Text>
            ) : null}
            {barWidth >= 4 ? (
              <>
                <Bar ended={ended} total={group.tasks} width={barWidth} />{" "}
              </>
            ) : null}
            {counts}
            <Text color={ENDED_COLOUR.failed}>{failed}</Text>
            <Text color={ENDED_COLOUR.skipped}>{skipped}</Text>
            {active}
          </Text>
        );
      })}
      {fold === null ? null : (
        <Text dimColor wrap="truncate">
          {cutToWidth(fold, columns)}
        </Text>
      )}
    </Box>
  );
}
