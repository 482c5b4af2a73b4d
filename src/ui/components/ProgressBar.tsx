import { Text } from "ink";
import { bar } from "../format.js";

/** A bar with its percentage and count: `██████░░░░ 60% 6/10`. */
export function ProgressBar({
  fraction,
  done,
  total,
  width,
}: {
  fraction: number;
  done: number;
  total: number;
  width: number;
}) {
  const label = ` ${Math.floor(fraction * 100)}% ${done}/${total}`;
  const cells = Math.max(0, width - label.length);
  return (
    <Text wrap="truncate">
      <Text color="green">{bar(fraction, cells)}</Text>
      {label}
    </Text>
  );
}
