import { Box, Text } from "ink";
import { endedOf, truncate } from "../format.js";
import type { GroupView } from "../run-view.js";
import { Bar, ENDED_COLOUR } from "./Bar.js";

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
  // When they do not all fit, the last row says how many are left out.
  const shown = groups.length <= maxRows ? groups : groups.slice(0, Math.max(0, maxRows - 1));
  const nameWidth = Math.min(20, Math.max(...groups.map((g) => g.job.length)));
  const familyWidth =
    columns >= 60 ? Math.min(14, Math.max(...groups.map((g) => (g.family ?? "").length))) : 0;
  return (
    <Box flexDirection="column">
      {shown.map((group) => {
        const ended = endedOf(group);
        const failed = ended.failed > 0 ? ` ${ended.failed} failed` : "";
        const skipped = ended.skipped > 0 ? ` ${ended.skipped} skipped` : "";
        const active = group.active > 0 ? ` ${group.active} active` : "";
        const counts = `${group.done}/${group.tasks}`;
        const countsWidth = counts.length + failed.length + skipped.length + active.length;
        const barWidth = Math.min(30, columns - nameWidth - familyWidth - countsWidth - 3);
        return (
          <Text key={group.job} wrap="truncate">
            {truncate(group.job, nameWidth).padEnd(nameWidth)}{" "}
            {familyWidth > 0 ? (
              <Text dimColor>{truncate(group.family ?? "", familyWidth).padEnd(familyWidth)} </Text>
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
      {shown.length < groups.length ? (
        <Text dimColor>… and {groups.length - shown.length} more jobs</Text>
      ) : null}
    </Box>
  );
}
