import { Box, Text } from "ink";
import type { RunView } from "../run-view.js";

/** The stages in a run's order, as shown. */
export function stageParts(view: RunView): string[] {
  const s = view.stages;
  return [
    `queued ${s.queued}`,
    `submitting ${s.submitting}`,
    `running ${s.running} (avg ${Math.round(view.runningAverage)}%)`,
    `downloading ${s.downloading}`,
    `post-processing ${s.postprocessing}`,
    `done ${s.done}`,
    `failed ${s.failed}`,
  ];
}

/** Packs parts into as few lines of `width` as they fit in, two spaces apart. */
export function packParts(parts: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    if (line !== "" && line.length + 2 + part.length > width) {
      lines.push(line);
      line = part;
    } else line = line === "" ? part : `${line}  ${part}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** Counts per stage, wrapped to the terminal's width. */
export function StageCounts({ view, columns }: { view: RunView; columns: number }) {
  const lines = packParts(stageParts(view), columns);
  return (
    <Box flexDirection="column">
      {lines.map((line) => (
        <Text
          key={line}
          wrap="truncate"
          color={
            line.includes(`failed ${view.stages.failed}`) && view.stages.failed > 0
              ? "red"
              : undefined
          }
        >
          {line}
        </Text>
      ))}
    </Box>
  );
}
