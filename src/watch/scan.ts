import { statSync } from "node:fs";
import path from "node:path";
import { filesMatching, staticBase } from "../manifest/index.js";
import type { Signature } from "./settle.js";

/**
 * What `gwrun watch` looks at: the files the globs of `rows: { files }` match, listed as the
 * manifest lists them (`file-rows.ts`: relative to its folder, no dot names, links not
 * followed), and the folders they are searched from.
 */

/** Every file the globs match now, relative to `dir`, with its signature. */
export function scanFiles(dir: string, globs: readonly string[]): Map<string, Signature> {
  const patterns = globs.filter((glob) => !glob.startsWith("!"));
  const found = new Map<string, Signature>();
  for (const file of filesMatching(dir, patterns, globs)) {
    const stat = statSync(path.resolve(dir, file), { throwIfNoEntry: false });
    // Gone since it was listed, or a link to a folder: no row, nothing to wait for.
    if (stat?.isFile() === true) found.set(file, `${stat.size}:${stat.mtimeMs}:${stat.ino}`);
  }
  return found;
}

/** A folder a glob searches, and whether its pattern reaches into subfolders. */
export interface WatchedFolder {
  /** Absolute. */
  folder: string;
  recursive: boolean;
}

/** The folders to watch for `globs`: the static base of each, once (recursive when any needs it). */
export function watchedFolders(dir: string, globs: readonly string[]): WatchedFolder[] {
  const folders = new Map<string, boolean>();
  for (const glob of globs) {
    if (glob.startsWith("!")) continue;
    const base = staticBase(glob);
    const parts = glob.split("/");
    const fixed = base === "." ? 0 : base.split("/").length;
    // `in/*.png` is one level; `in/**/*.png` or `in/*/x.png` reach below it.
    const recursive = parts.length - fixed > 1 || glob.includes("**");
    const folder = path.resolve(dir, base);
    folders.set(folder, (folders.get(folder) ?? false) || recursive);
  }
  return [...folders].map(([folder, recursive]) => ({ folder, recursive }));
}
