import { existsSync } from "node:fs";
import path from "node:path";
import type { RunRow } from "../store/index.js";
import { MARKER_FILE } from "./output-marker.js";

/**
 * The project folder a worker works a run in. Paths in the store are relative to a project, so
 * the fleet's shared output folder may be mounted anywhere: a worker started in the project
 * folder finds it there. A worker started elsewhere (a unit without a working directory) still
 * finds a run whose folder is mounted where the run was recorded: at its recorded project.
 */
export function runProject(
  run: Pick<RunRow, "output_dir" | "project_dir">,
  workerProject: string,
): string {
  const candidates = [workerProject, run.project_dir].filter((dir): dir is string => dir !== null);
  return (
    candidates.find((dir) =>
      existsSync(path.join(path.resolve(dir, run.output_dir), MARKER_FILE)),
    ) ?? workerProject
  );
}
