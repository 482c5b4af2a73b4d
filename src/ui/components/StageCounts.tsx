import { Box, Text } from "ink";
import { displayWidth } from "../../core/text-width.js";
import { type StagePart, stageParts } from "../format.js";
import type { RunView } from "../run-view.js";
import { ENDED_COLOUR } from "./Bar.js";

/** Packs parts into as few lines of `width` as they fit in, two spaces apart. */
export function packParts(parts: readonly StagePart[], width: number): StagePart[][] {
  const lines: StagePart[][] = [];
  let line: StagePart[] = [];
  let length = 0;
  for (const part of parts) {
    if (line.length > 0 && length + 2 + displayWidth(part.text) > width) {
      lines.push(line);
      line = [];
      length = 0;
    }
    length += (line.length > 0 ? 2 : 0) + displayWidth(part.text);
    line.push(part);
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/** Counts per stage, wrapped to the terminal's width; failed and skipped in their colours. */
export function StageCounts({ view, columns }: { view: RunView; columns: number }) {
  const lines = packParts(stageParts(view), columns);
  return (
    <Box flexDirection="column">
      {lines.map((line) => (
        <Text key={line.map((part) => part.text).join("  ")} wrap="truncate">
          {line.map((part, i) => (
            <Text
              key={part.text}
              color={part.tone === undefined ? undefined : ENDED_COLOUR[part.tone]}
            >
              {i > 0 ? "  " : ""}
              {part.text}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}
