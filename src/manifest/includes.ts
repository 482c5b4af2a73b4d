import path from "node:path";
import { isRecord } from "../core/values.js";
import type { Reporter } from "./report.js";
import { RUNNER_KEYS } from "./schema.js";

/**
 * `{ file: path }` stands for a string: a prompt or request kept in a file of its own,
 * relative to the manifest. Its text is a template like any other value; a problem inside it
 * is placed in that file (`ManifestSource.included`).
 */

const RUNNER_KEY_SET: ReadonlySet<string> = new Set(RUNNER_KEYS);

/** Media files are sent by path as a field's value, not read in as text. */
const MEDIA = /\.(png|jpe?g|webp|gif|bmp|avif|mp4|mov|webm)$/i;

/** Replaces, in place, every `{ file: path }` of the jobs' request fields, `vars` and `defaults`. */
export function readIncludes(manifest: Record<string, unknown>, reporter: Reporter): void {
  const visit = (value: unknown, at: (string | number)[]): unknown => {
    // An unread file leaves its path as the text: its own error is the one to show.
    if (isInclude(value)) return readInclude(value.file, at, reporter) ?? value.file;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = visit(value[i], [...at, i]);
    } else if (isRecord(value)) {
      for (const key of Object.keys(value)) value[key] = visit(value[key], [...at, key]);
    }
    return value;
  };
  for (const section of ["vars", "defaults"]) visit(manifest[section], [section]);
  const jobs = manifest.jobs;
  if (!Array.isArray(jobs)) return;
  jobs.forEach((job, index) => {
    if (!isRecord(job)) return;
    for (const key of Object.keys(job))
      if (!RUNNER_KEY_SET.has(key)) job[key] = visit(job[key], ["jobs", index, key]);
  });
}

function isInclude(value: unknown): value is { file: string } {
  return isRecord(value) && typeof value.file === "string" && Object.keys(value).length === 1;
}

function readInclude(
  written: string,
  at: (string | number)[],
  reporter: Reporter,
): string | undefined {
  if (MEDIA.test(written)) {
    reporter.at(
      [...at, "file"],
      "include",
      `{ file: ${written} } reads a text file; give an image or clip as the field's value (${path.basename(written)})`,
    );
    return undefined;
  }
  const read = reporter.source.readAside(written);
  if ("problem" in read) {
    reporter.at([...at, "file"], "include", `file: ${read.problem}`);
    return undefined;
  }
  // A text file's last line ends with a line break that belongs to no prompt.
  const text = read.text.replace(/^\uFEFF/, "").replace(/\r?\n$/, "");
  reporter.source.included.set(JSON.stringify(at), { file: read.file, text });
  return text;
}
