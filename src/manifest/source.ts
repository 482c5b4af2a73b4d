import path from "node:path";
import { type Document, LineCounter, parseDocument } from "yaml";
import {
  type FileGate,
  fileGate,
  readGatedSync,
  TEXT_FILE_MAX_BYTES,
  textOf,
} from "../core/file-gate.js";
import { resolveFromCwd } from "../core/io.js";
import { projectOf } from "../core/project.js";
import { isRecord } from "../core/values.js";
import type { Diagnostic } from "./diagnostics.js";
import type { FetchedRows, FileMedia } from "./row-types.js";
import { DOCUMENT_OPTIONS } from "./yaml-syntax.js";

/**
 * A manifest as read (`load.ts` reads it): its text, its YAML document, its value, and the
 * files it names, read through its file gate.
 */

/** A manifest file read and parsed, with everything needed to point at its text. */
export class ManifestSource {
  readonly dir: string;
  /** The plain value with `${ENV}` references replaced; undefined when the YAML is broken. */
  value: unknown;
  readonly diagnostics: Diagnostic[] = [];
  /** `gateway.api_key` as written, before `${ENV}` is read (undefined when there is none). */
  writtenKey: unknown;
  /** `notify:` as written, before `${ENV}` is read (a webhook URL is a secret). */
  writtenNotify: unknown;
  /**
   * Strings read from `{ file: path }`, by the JSON of their path into `value`: a problem
   * inside one is placed in that file.
   */
  readonly included = new Map<string, { file: string; text: string }>();
  /**
   * What was probed of the files `rows: { files }` lists (a picture's sides, a clip's seconds),
   * by real path: filled before the jobs are expanded by a stage that may run sharp and ffprobe.
   */
  readonly fileMedia = new Map<string, FileMedia>();
  /**
   * The bodies of the URLs `rows:` names (or why there is none), by the URL: fetched before
   * the jobs are expanded, or given back from the record of the run being continued.
   */
  readonly fetchedRows = new Map<string, FetchedRows>();
  #doc: Document | undefined;
  #lineCounter: LineCounter | undefined;
  #aside = new Map<string, FileAside>();
  #gate: FileGate | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.dir = path.dirname(resolveFromCwd(file));
  }

  /** The YAML document with source ranges, parsed on first use. */
  get doc(): Document {
    if (this.#doc === undefined) {
      this.#lineCounter = new LineCounter();
      this.#doc = parseDocument(this.text, {
        ...DOCUMENT_OPTIONS,
        lineCounter: this.#lineCounter,
      });
    }
    return this.#doc;
  }

  get lineCounter(): LineCounter {
    void this.doc;
    return this.#lineCounter as LineCounter;
  }

  /**
   * The file gate of what the manifest names: its project folder, and the folders its
   * `files: { allow }` adds (relative to the manifest).
   */
  get gate(): FileGate {
    this.#gate ??= fileGate([projectOf(this.file), ...allowedFolders(this.value, this.dir)]);
    return this.#gate;
  }

  /**
   * A file the manifest names (rows, a prompt), relative to the manifest's folder, read once
   * through the file gate (at most `maxBytes`): its text, or why it cannot be read. `file`
   * names it as diagnostics show it.
   */
  readAside(written: string, maxBytes: number = TEXT_FILE_MAX_BYTES): FileAside {
    const known = this.#aside.get(written);
    if (known !== undefined) return known;
    const file = path.isAbsolute(written) ? written : path.join(path.dirname(this.file), written);
    const read = textOf(
      readGatedSync(this.gate, path.resolve(this.dir, written), maxBytes, written),
    );
    const aside: FileAside =
      "problem" in read
        ? {
            file,
            problem:
              read.kind === "missing"
                ? `no file ${written} next to the manifest (paths are relative to its folder)`
                : read.problem,
          }
        : { file, text: read.text };
    this.#aside.set(written, aside);
    return aside;
  }
}

/** A file read beside the manifest, or why it could not be. */
export type FileAside = { file: string; text: string } | { file: string; problem: string };

/** The folders `files: { allow: [...] }` names, absolute (relative ones to the manifest's). */
function allowedFolders(value: unknown, dir: string): string[] {
  const files = isRecord(value) ? value.files : undefined;
  const allow = isRecord(files) ? files.allow : undefined;
  if (!Array.isArray(allow)) return [];
  return allow.flatMap((folder) =>
    typeof folder === "string" && folder !== "" ? [path.resolve(dir, folder)] : [],
  );
}
