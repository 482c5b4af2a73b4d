import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * What gwrun serves or hands over is a file it recorded, as it recorded it: a regular file —
 * not a link, which anyone sharing the folder could point at any file its reader may read —
 * whose real path lies inside one of the folders allowed (the project, an output folder).
 */

/** Why `file` may not be read; undefined when it may. */
export function unsafeFile(file: string, roots: readonly string[]): string | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch {
    return "it is not on disk";
  }
  if (stat.isSymbolicLink()) return "it is a link";
  if (!stat.isFile()) return "it is not a regular file";
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return "it is not on disk";
  }
  const inside = roots.some((root) => {
    try {
      return isBelow(realpathSync(root), real);
    } catch {
      return false;
    }
  });
  return inside ? undefined : "it lies outside the project's folders (a linked folder on its way)";
}

/** Whether `file` lies below `dir` (both absolute). */
export function isBelow(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
