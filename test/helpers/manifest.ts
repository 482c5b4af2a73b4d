import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CheckedManifest, checkManifestFile } from "../../src/families/check-manifest.js";

const dirs: string[] = [];

/**
 * Removes the folders `tempDir` made: after each test file (test/temp-folders.ts). A hook this
 * module registered itself would run after the first file of a worker only, as the module is
 * loaded once per worker.
 */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A temporary folder holding the given files; removed after the test file. */
export function tempDir(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "gwrun-test-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return dir;
}

/** Writes an inline manifest (and any side files) to a temp folder and checks it. */
export async function checkInline(
  yaml: string,
  files: Record<string, string | Buffer> = {},
  env: NodeJS.ProcessEnv = {},
  at: number = Date.now(),
): Promise<CheckedManifest> {
  const dir = tempDir({ ...files, "manifest.yaml": yaml });
  return checkManifestFile(path.join(dir, "manifest.yaml"), env, at);
}

/** "LINE:COL rule" of every error, for compact assertions. */
export function errorsOf(checked: CheckedManifest): string[] {
  return checked.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => `${d.line}:${d.col} ${d.rule}`);
}

/**
 * A manifest of `tasks` pictures in one matrix job (`lights` values by tasks / lights styles)
 * and a job of three, in a temp folder; its path.
 */
export function manyTasksManifest(tasks: number, lights: number): string {
  const list = (n: number, word: string) =>
    Array.from({ length: n }, (_, i) => `"${word} ${i}"`).join(", ");
  const dir = tempDir({
    "manifest.yaml": `version: 1
name: many
jobs:
  - id: grid
    model: acme2.7-image
    prompt: "a mug, {{style}}, {{light}}"
    matrix: { style: [${list(tasks / lights, "style")}], light: [${list(lights, "light")}] }
  - { id: hero, model: acme-image-2, prompt: a mug, repeat: 3 }
`,
  });
  return path.join(dir, "manifest.yaml");
}
