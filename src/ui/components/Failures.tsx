import { Box, Text } from "ink";
import { cutToWidth } from "../../core/text-width.js";
import type { Failure } from "../run-state.js";

/** The last few failures, newest last, one line each. */
export function Failures({
  failures,
  columns,
  maxRows,
}: {
  failures: readonly Failure[];
  columns: number;
  maxRows: number;
}) {
  if (failures.length === 0 || maxRows < 2) return null;
  const shown = failures.slice(-(maxRows - 1));
  return (
    <Box flexDirection="column">
      <Text color="red">last failures:</Text>
      {shown.map((failure) => (
        <Text key={`${failure.label}:${failure.at}`} wrap="truncate">
          {cutToWidth(`  ${failure.label} ${failure.state}: ${failure.reason}`, columns)}
        </Text>
      ))}
    </Box>
  );
}
