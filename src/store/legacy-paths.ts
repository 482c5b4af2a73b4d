import { existsSync } from "node:fs";
import path from "node:path";
import { PROJECT_MARKERS } from "../core/project.js";
import type { PathRebase, Store } from "./port.js";
import { projectPaths } from "./project-paths.js";
import type { RunRow } from "./rows.js";

/**
 * A record written when gwrun kept absolute paths is rewritten once, relative to the project
 * folder each run was started in — even when the project has moved since. That folder is found
 * from what the run recorded: its output folder less the manifest's relative `output.dir`
 * (`data/outputs/{name}` is three folders below the project); else the nearest folder above
 * the manifest holding a project marker; else the manifest's own folder.
 */

/**
 * Rewrites the runs recorded with absolute paths, and their files, relative to their project.
 * `outputTemplateOf`: a recorded manifest's `output.dir` as written (undefined when unreadable).
 * Returns how many runs were rewritten.
 */
export async function adoptLegacyPaths(
  store: Store,
  outputTemplateOf: (manifestText: string) => string | undefined,
): Promise<number> {
  const legacy = await store.legacyRuns();
  if (legacy.length === 0) return 0;
  const rebases: PathRebase[] = legacy.map((run) => {
    const root = legacyRootOf(run, outputTemplateOf(run.manifest_text));
    const { recorded } = projectPaths(root);
    return {
      runId: run.id,
      root,
      manifestPath: recorded(run.manifest_path),
      outputDir: recorded(run.output_dir),
    };
  });
  await store.rebasePaths(rebases);
  return rebases.length;
}

/** The project folder a legacy run was started in (see above). */
export function legacyRootOf(
  run: Pick<RunRow, "manifest_path" | "output_dir">,
  template: string | undefined,
): string {
  const fromTemplate = template === undefined ? undefined : stripTemplate(run.output_dir, template);
  if (fromTemplate !== undefined) return fromTemplate;
  const start = path.dirname(run.manifest_path);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(path.join(dir, marker)))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/**
 * `outputDir` less the folders a relative `template` adds (`{name}`, `{date}` and `{tick}`
 * stand for one folder each); undefined when it does not end that way.
 */
function stripTemplate(outputDir: string, template: string): string | undefined {
  if (path.isAbsolute(template) || template.includes("${")) return undefined;
  const wanted = path.posix
    .normalize(template.replaceAll("\\", "/"))
    .split("/")
    .filter((part) => part !== "" && part !== ".");
  if (wanted.length === 0 || wanted.includes("..")) return undefined;
  const parts = path.resolve(outputDir).split(path.sep);
  if (parts.length <= wanted.length) return undefined;
  const tail = parts.slice(parts.length - wanted.length);
  const matches = wanted.every((part, i) => part.includes("{") || part === tail[i]);
  if (!matches) return undefined;
  return parts.slice(0, parts.length - wanted.length).join(path.sep) || path.sep;
}
