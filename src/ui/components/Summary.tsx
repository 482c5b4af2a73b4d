import { Box, Text } from "ink";
import { cutToWidth } from "../../core/text-width.js";
import { summaryLines } from "../format.js";
import type { RunView } from "../run-view.js";

/** The final summary, left on screen: counts, spend, output folder, reasons, next step, gallery. */
export function Summary({
  view,
  columns,
  galleryExists,
  db,
}: {
  view: RunView;
  columns: number;
  galleryExists: boolean;
  db: string | undefined;
}) {
  const [first, ...rest] = summaryLines(view, { galleryExists, db });
  return (
    <Box flexDirection="column">
      <Text
        bold
        color={view.end === "done" ? "green" : view.end === "failed" ? "red" : "yellow"}
        wrap="wrap"
      >
        {first}
      </Text>
      {rest.map((line) => (
        <Text key={line} wrap="truncate">
          {cutToWidth(line, columns)}
        </Text>
      ))}
    </Box>
  );
}
