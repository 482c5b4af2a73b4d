import { openGated, recordedFiles } from "../core/file-gate.js";
import type { Store, TaskRow } from "../store/index.js";
import { recordedFile } from "./files.js";

/**
 * What the viewer shows of a text output (a caption) beside pictures: its first words in the
 * grid, and the picture it was written from in the full view.
 */

/** How much of a text a grid cell shows; the viewer shows the whole. */
const EXCERPT_BYTES = 600;
const EXCERPT_CHARS = 200;

/** The first words of a recorded text output; null when its file cannot be served. */
export async function textExcerpt(
  store: Store,
  key: string,
  index: number,
  roots: readonly string[],
): Promise<string | null> {
  const file = await recordedFile(store, key, String(index), "file", roots);
  if (file === undefined) return null;
  const buffer = Buffer.alloc(EXCERPT_BYTES);
  const opened = await openGated(recordedFiles(roots), file.path);
  if ("problem" in opened) return null;
  let read = 0;
  try {
    read = (await opened.handle.read(buffer, 0, EXCERPT_BYTES, 0)).bytesRead;
  } finally {
    await opened.handle.close();
  }
  // A character cut by the byte limit decodes as U+FFFD: dropped with the rest of the cut.
  const text = buffer
    .subarray(0, read)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
  const words = text.replace(/\s+/g, " ").trim();
  return words.length > EXCERPT_CHARS || read === EXCERPT_BYTES
    ? `${words.slice(0, EXCERPT_CHARS).trimEnd()}…`
    : words;
}

/**
 * The id (`<key>/<index>`) of the picture or clip a task was made from: its upstream's only
 * media output, else the one whose link its request carries; null for none.
 */
export async function upstreamPicture(store: Store, task: TaskRow): Promise<string | null> {
  if (task.upstream_key === null) return null;
  const media = (await store.outputsOf(task.upstream_key)).filter(
    (output) =>
      output.state === "downloaded" &&
      /^(image|video)\//.test(output.content_type ?? "") &&
      output.path !== null,
  );
  const chosen =
    media.length === 1
      ? media[0]
      : media.find((output) => output.url !== null && task.request.includes(output.url));
  return chosen === undefined ? null : `${task.upstream_key}/${chosen.idx}`;
}
