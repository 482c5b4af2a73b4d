import path from "node:path";
import type { FileWrites } from "../core/file-writes.js";
import { partialDir, writeWhole } from "../core/output-files.js";
import type { OutputVerdict } from "../engine/index.js";
import type { OutputRow, TaskRow } from "../store/index.js";
import { provenanceText } from "./provenance.js";

/**
 * Writes an output's provenance sidecar (`<file>.json`) with its checks, thumbnail and poster,
 * in one write once the checks are known, so the asset stays traceable, checks included, once
 * it leaves the folder.
 */
export async function writeSidecar(
  row: TaskRow,
  output: OutputRow & { path: string },
  outputDir: string,
  verdict: OutputVerdict,
  simulator: boolean,
  files: FileWrites,
): Promise<void> {
  const file = output.path;
  const relative = (target: string | null) =>
    target === null ? null : path.relative(path.dirname(file), target).split(path.sep).join("/");
  const text = provenanceText(
    row,
    output.idx,
    {
      sha256: output.sha256,
      bytes: output.bytes,
      contentType: output.content_type,
      downloadedAt: output.downloaded_at,
    },
    {
      simulator,
      checks: {
        state: verdict.ok ? "ok" : "failed",
        problems: verdict.problems,
        ...verdict.details,
      },
      thumbnail: relative(verdict.thumbnail),
      poster: relative(verdict.poster),
    },
  );
  await writeWhole(`${file}.json`, text, partialDir(outputDir), files);
}
