import path from "node:path";
import type { FleetStore } from "./fleet-port.js";
import type { ReportScope, Store } from "./port.js";
import type { OutputCopy, OutputRow, ReportRow, RunRow } from "./rows.js";
import type { TaskEvent } from "./task-events.js";
import type { DownloadedFile, OutputCheck } from "./transition-inputs.js";

/**
 * The record holds wherever the project sits: every path the store keeps (the manifest, the
 * output folder, outputs, thumbnails, posters, copies) is relative to the project folder, so a
 * project moved, copied to another machine or opened through another mount point finds its
 * files. A path outside the project (an absolute `output.dir` elsewhere) is kept absolute.
 * `inProject` gives the store port to the rest of gwrun with absolute paths of this process's
 * project, and records them relative.
 */

/** Paths as the record keeps them (relative, with `/`) and as this process uses them. */
export interface ProjectPaths {
  readonly root: string;
  /** The recorded form of `file`: relative below the root, else absolute. */
  recorded(file: string): string;
  /** The absolute path of a recorded one. */
  absolute(recorded: string): string;
}

export function projectPaths(root: string): ProjectPaths {
  const base = path.resolve(root);
  const prefix = base.endsWith(path.sep) ? base : `${base}${path.sep}`;
  return {
    root: base,
    recorded(file) {
      const full = path.resolve(base, file);
      if (full === base) return ".";
      if (!full.startsWith(prefix)) return full;
      const relative = full.slice(prefix.length);
      return path.sep === "/" ? relative : relative.split(path.sep).join("/");
    },
    absolute(recorded) {
      return path.isAbsolute(recorded) ? recorded : path.join(base, recorded);
    },
  };
}

/** An output row with the absolute paths of this project (as the located store gives it). */
export function locatedOutput(paths: ProjectPaths, row: OutputRow): OutputRow {
  const abs = (file: string | null) => (file === null ? null : paths.absolute(file));
  return { ...row, path: abs(row.path), thumbnail: abs(row.thumbnail), poster: abs(row.poster) };
}

/** A run row with the absolute paths of this project. */
export function locatedRun<R extends RunRow>(paths: ProjectPaths, row: R): R {
  return {
    ...row,
    manifest_path: paths.absolute(row.manifest_path),
    output_dir: paths.absolute(row.output_dir),
  };
}

/** What crosses the port, mapped between the paths of this project and those on record. */
function locators(paths: ProjectPaths) {
  const { recorded: rel, absolute: abs } = paths;
  const orNull = (map: (file: string) => string) => (file: string | null) =>
    file === null ? null : map(file);
  return {
    rel,
    abs,
    run: <R extends RunRow | undefined>(row: R): R =>
      row === undefined ? row : locatedRun(paths, row),
    output: (row: OutputRow): OutputRow => locatedOutput(paths, row),
    copy: (row: OutputCopy, map: (file: string) => string): OutputCopy => ({
      ...row,
      output_dir: map(row.output_dir),
      path: map(row.path),
      thumbnail: orNull(map)(row.thumbnail),
      poster: orNull(map)(row.poster),
    }),
    scope: (given: ReportScope): ReportScope =>
      "folder" in given ? { folder: rel(given.folder) } : given,
    file: <F extends Pick<DownloadedFile, "path">>(given: F): F => ({
      ...given,
      path: rel(given.path),
    }),
    check: (given: OutputCheck): OutputCheck => ({
      ...given,
      thumbnail: orNull(rel)(given.thumbnail),
      poster: orNull(rel)(given.poster),
    }),
    events: <T extends { events: TaskEvent[] }>(result: T): T => ({
      ...result,
      events: result.events.map((event) => eventIn(event, abs)),
    }),
    reportRow: (row: ReportRow): ReportRow =>
      row.output === null
        ? row
        : {
            ...row,
            output: {
              ...row.output,
              path: orNull(abs)(row.output.path),
              thumbnail: orNull(abs)(row.output.thumbnail),
              poster: orNull(abs)(row.output.poster),
            },
          },
  };
}

/** The store with the paths of the project at `root`: absolute to its users, relative on record. */
export function inProject<S extends Store>(store: S, root: string): S {
  const paths = projectPaths(root);
  const at = locators(paths);
  const { rel, abs, run, output, scope } = at;
  const located: Store = {
    ...store,
    createRun: (given) =>
      store.createRun({
        ...given,
        manifest_path: rel(given.manifest_path),
        output_dir: rel(given.output_dir),
        project_dir: paths.root,
      }),
    run: async (id) => run(await store.run(id)),
    latestRun: async (name) => run(await store.latestRun(name)),
    runs: async (limit) => (await store.runs(limit)).map(run),
    publishingRuns: async () => (await store.publishingRuns()).map(run),
    runOfTick: async (name, tick) => run(await store.runOfTick(name, tick)),
    scheduledRuns: async (name) => (await store.scheduledRuns(name)).map(run),
    filesOfRun: async (runId) => (await store.filesOfRun(runId)).map(abs),
    currentTasksOf: (outputDir, jobId) => store.currentTasksOf(rel(outputDir), jobId),
    outputsOf: async (key) => (await store.outputsOf(key)).map(output),
    copiesOf: async (key) => (await store.copiesOf(key)).map((row) => at.copy(row, abs)),
    outputAt: (file) => store.outputAt(rel(file)),
    recordCopies: (copies) => store.recordCopies(copies.map((row) => at.copy(row, rel))),
    recordDownloads: async (files, now) =>
      at.events(await store.recordDownloads(files.map(at.file), now)),
    recordTextAnswer: async (task, answer, files, now) =>
      at.events(await store.recordTextAnswer(task, answer, files.map(at.file), now)),
    recordChecks: async (checked, now) =>
      at.events(
        await store.recordChecks(
          checked.map((entry) => ({ ...entry, checks: entry.checks.map(at.check) })),
          now,
        ),
      ),
    reportRows: async function* (given) {
      // An order is the store's own, its folder as recorded.
      for await (const row of store.reportRows("places" in given ? given : scope(given)))
        yield at.reportRow(row);
    },
    reportOrderOf: (given) => store.reportOrderOf(scope(given)),
    failuresOf: (given) => store.failuresOf(scope(given)),
    summaryOf: (given) => store.summaryOf(scope(given)),
    reviewsOf: (given) => store.reviewsOf(scope(given)),
  };
  if (!("fleet" in store)) return located as S;
  return { ...located, fleet: fleetInProject(store.fleet as FleetStore, at) } as unknown as S;
}

/** The fleet's port with the paths of this project. */
function fleetInProject(fleet: FleetStore, at: ReturnType<typeof locators>): FleetStore {
  return {
    ...fleet,
    tasksWithOutputs: async (keys) => {
      const found = await fleet.tasksWithOutputs(keys);
      for (const [key, one] of found)
        found.set(key, { ...one, outputs: one.outputs.map(at.output) });
      return found;
    },
    fleetRun: async (runId) => at.run(await fleet.fleetRun(runId)),
    activeRuns: async () => (await fleet.activeRuns()).map(at.run),
  };
}

/** An event of a transition, with its paths as this process uses them. */
function eventIn(event: TaskEvent, abs: (file: string) => string): TaskEvent {
  if (event.type === "output:downloaded") return { ...event, path: abs(event.path) };
  if (event.type === "output:checked" && event.thumbnail !== null)
    return { ...event, thumbnail: abs(event.thumbnail) };
  return event;
}
