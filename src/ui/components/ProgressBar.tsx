import { Text } from "ink";
import type { Ended } from "../format.js";
import { Bar } from "./Bar.js";

/**
 * The run's bar with the share and count of tasks ended, however they ended:
 * `██████░░░░ 60% 6/10`.
 */
export function ProgressBar({
  ended,
  total,
  width,
}: {
  ended: Ended;
  total: number;
  width: number;
}) {
  const count = ended.done + ended.failed + ended.skipped;
  const label = ` ${Math.floor((total > 0 ? count / total : 0) * 100)}% ${count}/${total}`;
  return (
    <Text wrap="truncate">
      <Bar ended={ended} total={total} width={Math.max(0, width - label.length)} />
      {label}
    </Text>
  );
}
